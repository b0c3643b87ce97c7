/**
 * Runs the real `git` binary. Rules that keep every call safe and reproducible:
 *  - `execFile`, never a shell: arguments are passed as they are, nothing is interpreted.
 *  - A fixed environment built from scratch (only PATH is inherited): no system or user config
 *    (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL` = the null device), no prompts, no hooks, the C
 *    locale, and an explicit identity. A stray `GIT_DIR` in the worker's environment cannot redirect
 *    a call to another repository.
 *  - Callers validate names (names.ts) and put `--` or `--end-of-options` before anything taken from
 *    outside; this module only runs what it is given.
 *  - A command that fails on a lock file a killed process left behind (stale-lock.ts) has the lock
 *    removed and runs once more: a crash mid-update must not stall a repository for good.
 * A non-zero exit is not an error here: callers decide which exit codes are answers (e.g. 1 = merge
 * conflict) and which are failures, with `expectSuccess` for the common case.
 */
import { devNull } from 'node:os';
import { createDirectProcessRunner, type ProcessRunner } from '../platform/process-runner';
import { removeStaleLock, staleLockOf, type StaleLock } from './stale-lock';

export interface GitIdentity {
  name: string;
  email: string;
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface GitCallOptions {
  /** Repository (bare or work tree) the command runs in, passed as `-C <dir>`. */
  dir: string;
  /** Extra environment, e.g. the author of a commit being replayed or a fixed date. */
  env?: Record<string, string>;
  /** Written to the command's standard input (commit messages). */
  input?: string;
}

export type Git = (args: readonly string[], options: GitCallOptions) => Promise<GitResult>;

export interface GitCliOptions {
  /** The committer of every commit railyard writes (and the author of merge commits). */
  identity: GitIdentity;
  /** Name or path of the binary; `git` from PATH by default. */
  binary?: string;
  /** Per-call limit; git operations on a local repository take far less. */
  timeoutMs?: number;
  /**
   * Who starts the processes: the process's process broker in a worker (platform/process-runner.ts:
   * a fork of a large process is not free), or this process (the default).
   */
  runner?: ProcessRunner;
  /** Told of each stale lock removed (a git process was killed mid-update); a warning on stderr by default. */
  onStaleLock?: (lock: StaleLock, args: readonly string[]) => void;
}

const MAX_OUTPUT = 64 * 1024 * 1024;

export function createGit(options: GitCliOptions): Git {
  const binary = options.binary ?? 'git';
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ATTR_NOSYSTEM: '1',
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: options.identity.name,
    GIT_AUTHOR_EMAIL: options.identity.email,
    GIT_COMMITTER_NAME: options.identity.name,
    GIT_COMMITTER_EMAIL: options.identity.email,
  };
  // Repositories under the root may have been created by other tools: their hooks never run here.
  const fixedArgs = ['-c', `core.hooksPath=${devNull}`, '-c', 'advice.detachedHead=false', '-c', 'gc.auto=0'];

  const runner = options.runner ?? createDirectProcessRunner();

  const once = async (args: readonly string[], call: GitCallOptions): Promise<GitResult> => {
    const outcome = await runner.run({
      file: binary,
      args: [...fixedArgs, '-C', call.dir, ...args],
      env: { ...baseEnv, ...call.env },
      input: call.input,
      maxBuffer: MAX_OUTPUT,
      timeoutMs: options.timeoutMs ?? 120_000,
    });
    switch (outcome.kind) {
      case 'exited':
        return { exitCode: outcome.exitCode, stdout: outcome.stdout, stderr: outcome.stderr };
      case 'failed':
        throw new Error(`git ${args[0] ?? ''} ${outcome.reason}`);
      default: {
        const never: never = outcome;
        return never;
      }
    }
  };

  return async (args, call) => {
    const result = await once(args, call);
    if (result.exitCode === 0) return result;
    // Git fails on a lock before it changes anything, so running the command again is safe.
    const stale = staleLockOf(result.stderr, call.dir, Date.now());
    if (stale === null || !removeStaleLock(stale)) return result;
    (options.onStaleLock ?? warnStaleLock)(stale, args);
    return once(args, call);
  };
}

function warnStaleLock(lock: StaleLock, args: readonly string[]): void {
  console.warn(
    `git: removed ${lock.path}, a lock ${Math.round(lock.ageMs / 1000)} s old that a killed git process left; running git ${args[0] ?? ''} again`,
  );
}

/** Runs a command that must succeed, returning its standard output. */
export async function expectSuccess(
  git: Git,
  args: readonly string[],
  options: GitCallOptions,
): Promise<string> {
  const result = await git(args, options);
  if (result.exitCode !== 0) {
    throw new Error(
      `git ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 500)}`,
    );
  }
  return result.stdout;
}

/** Commit and author dates in git's internal format, fixed so that rebuilding gives the same ids. */
export function fixedDateEnv(epochSeconds: number): Record<string, string> {
  const date = `@${epochSeconds} +0000`;
  return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
}
