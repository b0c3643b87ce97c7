/**
 * git as a GitHub App installation runs it against fakehub (and as railyard's adapter should): the
 * token travels in `http.extraHeader` through GIT_CONFIG_* environment variables, never in a URL, an
 * argument (visible to `ps`) or a credential helper; no user or system config; no prompts.
 */
import { devNull } from 'node:os';
import { createDirectProcessRunner, type ProcessRunner } from '../../../platform/process-runner';

export interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type TokenGit = (args: readonly string[], options?: { cwd?: string }) => Promise<GitRun>;

/** git authenticated with `token` (null: no credential at all). */
export function gitAs(token: string | null, runner: ProcessRunner = createDirectProcessRunner()): TokenGit {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: 'Ada Lovelace',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'credential.helper',
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: 'init.defaultBranch',
    GIT_CONFIG_VALUE_1: 'main',
  };
  if (token !== null) {
    env.GIT_CONFIG_COUNT = '3';
    env.GIT_CONFIG_KEY_2 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_2 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  }
  return async (args, options = {}) => {
    const outcome = await runner.run({
      file: 'git',
      args,
      env,
      cwd: options.cwd,
      timeoutMs: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (outcome.kind === 'failed') throw new Error(`git ${args[0] ?? ''} ${outcome.reason}`);
    return { exitCode: outcome.exitCode, stdout: outcome.stdout, stderr: outcome.stderr };
  };
}
