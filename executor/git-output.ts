/**
 * One read-only git command whose output is needed (a count, a
 * commit id), with the executor hand-off's hardened settings (executor/git-command.ts): no system or
 * global configuration, no hooks, `file` transport only. Its stdout is bounded (OUTPUT_KEPT): the
 * repository is a tenant's, and nothing asked of it here prints more than a few commit ids.
 */
import { spawn } from 'node:child_process';
import { hardenedGitArgs, hardenedGitEnv } from './git-command';

const OUTPUT_KEPT = 64 * 1024;

/** git's stdout, or null when it exits non-zero (an unknown commit, a commit that is no ancestor). */
export function gitOutput(cwd: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...hardenedGitArgs(cwd), ...args], {
      cwd,
      env: hardenedGitEnv(),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      if (out.length < OUTPUT_KEPT) out += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve(code === 0 ? out : null));
  });
}
