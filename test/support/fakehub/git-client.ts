/**
 * git as a GitHub App installation runs it against fakehub (and as railyard's adapter should): the
 * token travels in `http.extraHeader` through GIT_CONFIG_* environment variables, never in a URL, an
 * argument (visible to `ps`) or a credential helper; no user or system config; no prompts.
 */
import { execFile } from 'node:child_process';
import { devNull } from 'node:os';

export interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type TokenGit = (args: readonly string[], options?: { cwd?: string }) => Promise<GitRun>;

/** git authenticated with `token` (null: no credential at all). */
export function gitAs(token: string | null): TokenGit {
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
  return (args, options = {}) =>
    new Promise((resolve, reject) => {
      execFile('git', [...args], { cwd: options.cwd, env, encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = (error as (Error & { code?: unknown }) | null)?.code;
        if (error && typeof code !== 'number') return reject(new Error(error.message));
        resolve({ exitCode: typeof code === 'number' ? code : 0, stdout, stderr });
      });
    });
}
