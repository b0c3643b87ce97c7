/**
 * One git command for the executor hand-off (bundles made and cloned): resolves when git exits 0,
 * rejects with the start of its stderr otherwise. No shell; the arguments are git's alone.
 */
import { spawn } from 'node:child_process';

const STDERR_KEPT = 4096;

export function gitCommand(cwd: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0]} failed (${code}): ${stderr.trim()}`)),
    );
  });
}
