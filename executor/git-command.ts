/**
 * The executor hand-off's hardened git (bundles made, verified, cloned and fetched), for the executor
 * and for the worker that builds the bundles: `run` resolves when git exits 0 and rejects with the start
 * of its stderr otherwise; `output` answers git's stdout, or null when it exits non-zero. No shell; the
 * arguments are git's alone.
 *
 * Hardened (issue 24), because the repository it works on is a pull request author's:
 * - no configuration but the command's own: no system file (GIT_CONFIG_NOSYSTEM), no global one
 *   (GIT_CONFIG_GLOBAL=/dev/null), and no GIT_* variable of the caller's environment reaches git;
 * - transports: `file` only (a bundle clone needs nothing else), every other protocol refused
 *   (protocol.allow=never), so no URL in a bundle or a submodule can make git fetch or run anything;
 * - no hooks (core.hooksPath=/dev/null), no fsmonitor, no submodule recursion, no prompts;
 * - safe.directory is the one folder the command works in (`safeDirectory`, default `cwd`), never `*`;
 * - bounded: a command is killed past GIT_TIMEOUT_MS or past OUTPUT_LIMIT bytes of output (nothing
 *   asked of it prints more than a few commit ids), and that is a failure, never a partial answer.
 *
 * The commands run through a ProcessRunner (platform/process-runner.ts), given by whoever composes the
 * process: a large one (the worker, a test's jest worker holding an in-process executor) hands them to
 * its process broker, because a fork of a large process costs milliseconds of CPU each (issue 23).
 */
import path from 'node:path';
import type { ProcessRunner } from '../platform/process-runner';

/** Characters of stderr an error keeps. */
const STDERR_KEPT = 4096;
/** A bundle of a large repository takes minutes; a git that hangs longer is stuck. */
export const GIT_TIMEOUT_MS = 15 * 60 * 1000;
const OUTPUT_LIMIT = 64 * 1024;

/** The `-c` settings every command runs with (before the subcommand). */
export function hardenedGitArgs(safeDirectory: string): string[] {
  return [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.file.allow=always',
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'submodule.recurse=false',
    '-c',
    `safe.directory=${path.resolve(safeDirectory)}`,
  ];
}

/** git's environment: PATH and a few locale settings of the caller, no GIT_* of its, no global config. */
export function hardenedGitEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'TMPDIR']) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  return {
    ...kept,
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'file',
  };
}

export interface HardenedGit {
  /** Resolves when git exits 0; rejects naming the subcommand, its exit and the start of its stderr. */
  run(cwd: string, args: readonly string[], opts?: { safeDirectory?: string }): Promise<void>;
  /** git's stdout, or null when it exits non-zero (an unknown commit, a commit that is no ancestor). */
  output(cwd: string, args: readonly string[]): Promise<string | null>;
}

export function createHardenedGit(processes: ProcessRunner): HardenedGit {
  async function exec(cwd: string, args: readonly string[], safeDirectory: string) {
    const outcome = await processes.run({
      file: 'git',
      args: [...hardenedGitArgs(safeDirectory), ...args],
      env: hardenedGitEnv(),
      cwd,
      timeoutMs: GIT_TIMEOUT_MS,
      maxBuffer: OUTPUT_LIMIT,
    });
    if (outcome.kind === 'failed') throw new Error(`git ${args[0]} failed: ${outcome.reason}`);
    return outcome;
  }
  return {
    async run(cwd, args, opts = {}) {
      const done = await exec(cwd, args, opts.safeDirectory ?? cwd);
      if (done.exitCode !== 0)
        throw new Error(
          `git ${args[0]} failed (${done.exitCode}): ${done.stderr.slice(0, STDERR_KEPT).trim()}`,
        );
    },
    async output(cwd, args) {
      const done = await exec(cwd, args, cwd);
      return done.exitCode === 0 ? done.stdout : null;
    },
  };
}
