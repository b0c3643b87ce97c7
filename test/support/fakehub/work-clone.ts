/**
 * A developer's working clone of a fakehub repository, over smart HTTP with an installation token:
 * tests write commits and push branches through it exactly as a person or CI would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessRunner } from '../../../platform/process-runner';
import { gitAs } from './git-client';

export interface WorkClone {
  dir: string;
  /** Runs git in the clone; throws with git's stderr on failure. */
  git(...args: string[]): Promise<string>;
  /** Writes `files` and commits them on the current branch; returns the sha. */
  commit(files: Record<string, string>, message?: string): Promise<string>;
  /** Starts (or resets) `branch` at `from` (a sha or a ref of the clone). */
  branch(branch: string, from: string): Promise<void>;
  push(sha: string, branch: string): Promise<void>;
  cleanup(): void;
}

/**
 * `token` may be a function: the clone then asks for the current token on every command. `runner`
 * starts git's processes (a deployment's broker); this process by default.
 */
export async function workClone(
  url: string,
  token: string | (() => string),
  runner?: ProcessRunner,
): Promise<WorkClone> {
  const current = typeof token === 'function' ? token : () => token;
  const dir = mkdtempSync(join(tmpdir(), 'fakehub-work-'));
  const git = async (...args: string[]) => {
    const result = await gitAs(current(), runner)(args, { cwd: dir });
    if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout.trim();
  };
  await git('clone', '-q', url, '.');
  let counter = 0;
  return {
    dir,
    git,
    async commit(files, message) {
      for (const [path, content] of Object.entries(files)) {
        writeFileSync(join(dir, path), content);
        await git('add', '--', path);
      }
      await git('commit', '-q', '-m', message ?? `commit ${++counter}`);
      return git('rev-parse', 'HEAD');
    },
    async branch(branch, from) {
      await git('checkout', '-q', '-B', branch, from);
    },
    async push(sha, branch) {
      await git('push', '-q', 'origin', `${sha}:refs/heads/${branch}`);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
