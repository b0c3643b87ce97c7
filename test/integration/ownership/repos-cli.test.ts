/** `npm run repos` (scripts/repos.ts) against a real scratch database: add, list, transfer, remove. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase } from '../../support/postgres';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const exec = promisify(execFile);

let url: string;
beforeAll(async () => {
  url = await createScratchDatabase('repos_cli');
});

async function repos(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await exec(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['scripts/repos.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } },
    );
    return { code: 0, out: `${stdout}${stderr}`.trim() };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}`.trim() };
  }
}

test('an operator claims, lists, transfers and removes a repository', async () => {
  expect(await repos('add', '--org', 'acme', 'local/acme/app')).toEqual({
    code: 0,
    out: 'local/acme/app now belongs to organisation "acme".',
  });
  expect(await repos('add', '--org', 'globex', 'local/ACME/app')).toEqual({
    code: 1,
    out: 'local/ACME/app belongs to organisation "acme"; use `npm run repos -- transfer --org globex local/ACME/app` to move it.',
  });
  expect((await repos('list', '--org', 'acme')).out).toMatch(
    /^acme {2}local\/acme\/app {2}claimed \S+ \(operator\) {2}public id [0-9a-f-]{36}$/,
  );
  expect((await repos('transfer', '--org', 'globex', 'local/acme/app')).code).toBe(0);
  expect((await repos('list')).out).toMatch(/^globex {2}local\/acme\/app/);
  expect(await repos('remove', 'local/acme/app')).toEqual({
    code: 0,
    out: 'local/acme/app has no owner now.',
  });
  expect(await repos('list')).toEqual({ code: 0, out: 'No repositories are claimed.' });
}, 60_000);

test('a bad repository or organisation is refused with a sentence naming it', async () => {
  expect(await repos('add', '--org', 'acme', 'acme/app')).toEqual({
    code: 2,
    out: '"acme/app" is not <host>/<owner>/<name>, for example local/acme/app.',
  });
  expect((await repos('add', '--org', 'Not A Slug', 'local/acme/app')).code).toBe(2);
  expect((await repos('add', '--org', 'acme', 'local/-x/app')).out).toMatch(/^"local\/-x\/app": repo\.owner/);
}, 60_000);
