/**
 * One git command for the executor hand-off (bundles made and cloned): resolves when git exits 0,
 * rejects with the start of its stderr otherwise. No shell; the arguments are git's alone.
 *
 * Hardened (issue 24), because the repository it works on is a pull request author's:
 * - no configuration but the command's own: no system file (GIT_CONFIG_NOSYSTEM), no global one
 *   (GIT_CONFIG_GLOBAL=/dev/null), and no GIT_* variable of the caller's environment reaches git;
 * - transports: `file` only (a bundle clone needs nothing else), every other protocol refused
 *   (protocol.allow=never), so no URL in a bundle or a submodule can make git fetch or run anything;
 * - no hooks (core.hooksPath=/dev/null), no fsmonitor, no submodule recursion, no prompts;
 * - safe.directory is the one folder the command works in (`safeDirectory`, default `cwd`), never `*`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const STDERR_KEPT = 4096;

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
export function hardenedGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'TMPDIR'])
    if (env[name] !== undefined) kept[name] = env[name];
  return {
    ...kept,
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'file',
  };
}

export function gitCommand(
  cwd: string,
  args: readonly string[],
  opts: { safeDirectory?: string } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...hardenedGitArgs(opts.safeDirectory ?? cwd), ...args], {
      cwd,
      env: hardenedGitEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += d.toString();
    });
    child.once('error', reject);
    // 'close', not 'exit': exit can come before git's stderr is read, and the error would lose its words.
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0]} failed (${code}): ${stderr.trim()}`)),
    );
  });
}
