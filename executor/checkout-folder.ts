/**
 * The folder of one `command` run: what the runner does to the checkout before the sandbox gets it,
 * and how it removes it afterwards.
 *
 * Invariants:
 *  - A sandboxed checkout owns its objects: the bare repository it was cloned from with `--shared`
 *    is not named anywhere in it (the sandbox must not see, or write, any bare repository).
 *  - A root worker hands the whole folder to the sandbox's unprivileged user, links not followed.
 *  - Removal succeeds whatever the command left behind: unreadable folders, trees deeper than
 *    PATH_MAX, links (never followed).
 * The commands go through the runner's ProcessRunner (a large process's broker: platform/process-runner.ts).
 */
import { chown, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessRunner } from '../platform/process-runner';
import { createHardenedGit, GIT_TIMEOUT_MS } from './git-command';

/** Copies the borrowed objects into the checkout and forgets the repository they came from. */
export async function ownObjects(processes: ProcessRunner, checkout: string): Promise<void> {
  await createHardenedGit(processes).run(checkout, ['repack', '-a', '-d', '-q']);
  await rm(join(checkout, '.git', 'objects', 'info', 'alternates'), { force: true });
}

/** A file utility on a whole tree: as long as a large repository's git, and only its errors printed. */
async function exec(processes: ProcessRunner, file: string, args: string[]): Promise<void> {
  const outcome = await processes.run({
    file,
    args,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: GIT_TIMEOUT_MS,
    maxBuffer: 8 * 1024 * 1024,
  });
  if (outcome.kind === 'failed') throw new Error(`${file} ${args[0] ?? ''} failed: ${outcome.reason}`);
  if (outcome.exitCode !== 0) throw new Error(`${file} ${args[0] ?? ''} exited with ${outcome.exitCode}`);
}

/**
 * Removes a finished run's folder whatever the command left in it. Node's rm fails on a tree deeper
 * than PATH_MAX (it uses whole paths) and, for a worker that is not root, on a folder the command
 * made unreadable (chmod 000); coreutils' rm works relative to open folders, after a chmod that
 * gives the owner its rights back (links are not followed by either).
 */
export async function removeTree(processes: ProcessRunner, dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await exec(processes, 'chmod', ['-R', 'u+rwX', '--', dir]).catch(() => undefined);
    await exec(processes, 'rm', ['-rf', '--', dir]);
  }
}

/** A root worker hands the checkout to the sandbox's unprivileged user (bwrap runs as it). */
export async function chownTree(
  processes: ProcessRunner,
  dir: string,
  ids: { uid: number; gid: number },
): Promise<void> {
  await chown(dir, ids.uid, ids.gid);
  await exec(processes, 'chown', ['-R', '--no-dereference', `${ids.uid}:${ids.gid}`, '--', dir]);
}
