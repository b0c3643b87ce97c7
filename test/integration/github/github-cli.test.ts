/**
 * `npm run github` (scripts/github.ts) against a real scratch database and a loopback stand-in for
 * GitHub's installation endpoints: link, list, a refused second link, unlink, and the sentences for
 * bad arguments and a missing app configuration.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startGitHubAppStub, type GitHubAppStub } from '../../support/github-app-stub';
import { createScratchDatabase } from '../../support/postgres';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const exec = promisify(execFile);

let url: string;
let stub: GitHubAppStub;
beforeAll(async () => {
  url = await createScratchDatabase('github_cli');
  stub = await startGitHubAppStub();
  stub.installations.set(31, { account: 'acme', repositories: ['acme/app', 'acme/lib'] });
});
afterAll(() => stub?.close());

async function github(args: string[], app = true): Promise<{ code: number; out: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: url,
    ...(app
      ? {
          RAILYARD_GITHUB_APP_ID: String(stub.appId),
          RAILYARD_GITHUB_PRIVATE_KEY: stub.privateKey,
          RAILYARD_GITHUB_WEBHOOK_SECRET: 'test-webhook-secret',
          RAILYARD_GITHUB_API_URL: stub.apiUrl,
        }
      : {}),
  };
  try {
    const { stdout, stderr } = await exec(...tsNode('scripts/github.ts', ...args), { cwd: ROOT, env });
    return { code: 0, out: `${stdout}${stderr}`.trim() };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}`.trim() };
  }
}

test('an operator links, lists and unlinks an installation', async () => {
  expect(await github(['link', '--org', 'acme', '--installation', '31'])).toEqual({
    code: 0,
    out: 'Installation 31 (acme) is now linked to organisation "acme".\nIt covers 2 repositories (2 added, 0 removed).',
  });
  expect(await github(['link', '--org', 'globex', '--installation', '31'])).toEqual({
    code: 1,
    out: 'Installation 31 is linked to organisation "acme"; unlink it first (npm run github -- unlink --installation 31).',
  });
  expect((await github(['list', '--org', 'acme'])).out).toMatch(
    /^acme {2}installation 31 {2}github\.com\/acme {2}2 repositories {2}linked \S+ \(operator\)$/,
  );
  expect(await github(['list', '--org', 'globex'])).toEqual({ code: 0, out: 'No installations are linked.' });
  expect(await github(['unlink', '--installation', '31'])).toEqual({
    code: 0,
    out: 'Installation 31 is unlinked; its repositories have no owner now.',
  });
  expect(await github(['list'])).toEqual({ code: 0, out: 'No installations are linked.' });
  expect(await github(['link', '--org', 'acme', '--installation', '32'])).toEqual({
    code: 1,
    out: `GitHub has no installation 32 of app ${stub.appId}.`,
  });
  const all =
    (await github(['list'])).out + (await github(['link', '--org', 'acme', '--installation', '31'])).out;
  for (const m of stub.minted) expect(all).not.toContain(m.token);
}, 120_000);

test('bad arguments and a missing app are refused with a sentence', async () => {
  expect(await github(['link', '--org', 'acme', '--installation', 'abc'])).toEqual({
    code: 2,
    out: '--installation must be the installation id, a positive whole number.',
  });
  expect((await github(['link', '--org', 'Not A Slug', '--installation', '31'])).code).toBe(2);
  expect(await github(['link', '--org', 'acme', '--installation', '31'], false)).toEqual({
    code: 2,
    out: 'GitHub is not configured: set RAILYARD_GITHUB_APP_ID, RAILYARD_GITHUB_PRIVATE_KEY_FILE and RAILYARD_GITHUB_WEBHOOK_SECRET (docs/github.md).',
  });
  expect((await github(['frobnicate'])).out).toMatch(/^usage: npm run github -- link/);
}, 120_000);
