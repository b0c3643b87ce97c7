/**
 * `npm run repos` (scripts/repos.ts) against a real scratch database: create, add, list, transfer,
 * remove.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase } from '../../support/postgres';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const exec = promisify(execFile);

let url: string;
beforeAll(async () => {
  url = await createScratchDatabase('repos_cli');
});

async function repos(...args: string[]): Promise<{ code: number; out: string }> {
  return reposWith({}, ...args);
}

async function reposWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await exec(...tsNode('scripts/repos.ts', ...args), {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, ...env },
    });
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

test('create makes a bare repository on the local host, claims it, and says how to push to it', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'repos-create-'));
  try {
    const made = await reposWith(
      { RAILYARD_GIT_ROOT: root },
      'create',
      '--org',
      'initech',
      'local/initech/tps',
    );
    const bare = path.join(root, 'local', 'initech', 'tps.git');
    expect(made.code).toBe(0);
    expect(made.out.split('\n')).toEqual([
      `Created local/initech/tps on the local host: ${bare}`,
      'local/initech/tps now belongs to organisation "initech".',
      'Push its target branch, then open pull requests by pushing to refs/pull/<n>/head:',
      `  git remote add railyard ${bare}`,
      '  git push railyard main',
      '  git push railyard my-change:refs/pull/1/head',
    ]);
    expect(
      execFileSync('git', ['--git-dir', bare, 'rev-parse', '--is-bare-repository']).toString().trim(),
    ).toBe('true');
    // Again: harmless, and the claim stands.
    expect(
      (await reposWith({ RAILYARD_GIT_ROOT: root }, 'create', '--org', 'initech', 'local/initech/tps')).code,
    ).toBe(0);
    expect((await repos('list', '--org', 'initech')).out).toMatch(/^initech {2}local\/initech\/tps/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60_000);
