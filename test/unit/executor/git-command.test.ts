/**
 * The executor's hardened git (executor/git-command.ts, issue 24), on real git: a bundle clones, but a
 * repository's hooks never run, no other transport than `file` is allowed (so no URL can make git fetch
 * or run a helper), and no configuration of the caller's environment (GIT_* variables, a global file)
 * reaches it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHardenedGit, hardenedGitEnv } from '../../../executor/git-command';
import { createDirectProcessRunner, createProcessBroker } from '../../../platform/process-runner';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'git-command-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const git = createHardenedGit(createDirectProcessRunner());
const gitCommand = git.run;

const plainGit = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

function bundle(): { file: string; sha: string } {
  const src = path.join(dir, `src-${Math.random().toString(36).slice(2)}`);
  fs.mkdirSync(src);
  plainGit(src, 'init', '-q');
  fs.writeFileSync(path.join(src, 'a.txt'), 'a\n');
  plainGit(src, 'add', 'a.txt');
  plainGit(src, 'commit', '-q', '-m', 'a');
  const file = path.join(dir, `${path.basename(src)}.bundle`);
  plainGit(src, 'bundle', 'create', '-q', file, 'HEAD');
  return { file, sha: plainGit(src, 'rev-parse', 'HEAD').trim() };
}

test('a bundle clones and checks out; the hooks of the checkout never run', async () => {
  const { file, sha } = bundle();
  const checkout = path.join(dir, 'checkout');
  await gitCommand(dir, ['clone', '--quiet', '--no-checkout', '--', file, checkout]);
  const marker = path.join(dir, 'hook-ran');
  const hook = path.join(checkout, '.git', 'hooks', 'post-checkout');
  fs.writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  await gitCommand(checkout, ['checkout', '--quiet', '--detach', sha]);
  expect(fs.readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('a\n');
  expect(fs.existsSync(marker)).toBe(false);
  // The same hook does run for plain git: the test would notice a hook that cannot run at all.
  plainGit(checkout, 'checkout', '--quiet', '--detach', sha);
  expect(fs.existsSync(marker)).toBe(true);
});

test('transports other than file are refused (ext, http, ssh)', async () => {
  for (const url of [
    'ext::sh -c touch% /tmp/railyard-ext-ran',
    'http://127.0.0.1:9/x.git',
    'ssh://127.0.0.1:9/x.git',
  ]) {
    await expect(gitCommand(dir, ['clone', '--quiet', '--', url, path.join(dir, 'never')])).rejects.toThrow(
      /not allowed|unsupported|transport/i,
    );
  }
  expect(fs.existsSync('/tmp/railyard-ext-ran')).toBe(false);
});

test("the caller's GIT_* variables and global configuration never reach git", () => {
  const env = hardenedGitEnv({
    PATH: '/usr/bin',
    HOME: '/root',
    GIT_DIR: '/elsewhere',
    GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/tmp/evil'",
    GIT_SSH_COMMAND: 'evil',
  });
  expect(env).toMatchObject({
    PATH: '/usr/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: 'file',
  });
  expect(env.HOME).not.toBe('/root');
  for (const name of ['GIT_DIR', 'GIT_CONFIG_PARAMETERS', 'GIT_SSH_COMMAND'])
    expect(env[name]).toBeUndefined();
});

test('output answers stdout, null for a non-zero exit, and fails rather than answer part of a long output', async () => {
  const { file, sha } = bundle();
  const checkout = path.join(dir, 'outputs');
  await gitCommand(dir, ['clone', '--quiet', '--no-checkout', '--', file, checkout]);
  expect((await git.output(checkout, ['rev-parse', 'HEAD']))?.trim()).toBe(sha);
  expect(await git.output(checkout, ['rev-parse', '--verify', '--quiet', 'refs/heads/none'])).toBeNull();
  // A commit message longer than the output bound: killed, and said so, never cut short.
  plainGit(checkout, 'commit', '-q', '--allow-empty', '-m', 'x'.repeat(70 * 1024));
  await expect(git.output(checkout, ['log', '-1', '--format=%B'])).rejects.toThrow(
    /git log failed: .*(maxBuffer|killed)/,
  );
});

test("through a process broker (a large process's way) it behaves the same", async () => {
  const broker = createProcessBroker();
  try {
    const viaBroker = createHardenedGit(broker);
    const { file, sha } = bundle();
    const checkout = path.join(dir, 'brokered');
    await viaBroker.run(dir, ['clone', '--quiet', '--no-checkout', '--', file, checkout]);
    await viaBroker.run(checkout, ['checkout', '--quiet', '--detach', sha]);
    expect(fs.readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(viaBroker.run(checkout, ['checkout', '--quiet', 'no-such-commit'])).rejects.toThrow(
      /git checkout failed \(\d+\): .*no-such-commit/,
    );
  } finally {
    broker.close();
  }
});
