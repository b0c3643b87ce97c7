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
 */
import { chown, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Copies the borrowed objects into the checkout and forgets the repository they came from. */
export async function ownObjects(checkout: string): Promise<void> {
  await exec('git', ['-C', checkout, 'repack', '-a', '-d', '-q']);
  await rm(join(checkout, '.git', 'objects', 'info', 'alternates'), { force: true });
}

function exec(file: string, args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args[0] ?? ''} exited with ${code}`)),
    );
  });
}

/**
 * Removes a finished run's folder whatever the command left in it. Node's rm fails on a tree deeper
 * than PATH_MAX (it uses whole paths) and, for a worker that is not root, on a folder the command
 * made unreadable (chmod 000); coreutils' rm works relative to open folders, after a chmod that
 * gives the owner its rights back (links are not followed by either).
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await exec('chmod', ['-R', 'u+rwX', '--', dir]).catch(() => undefined);
    await exec('rm', ['-rf', '--', dir]);
  }
}

/** A root worker hands the checkout to the sandbox's unprivileged user (bwrap runs as it). */
export async function chownTree(dir: string, ids: { uid: number; gid: number }): Promise<void> {
  await chown(dir, ids.uid, ids.gid);
  await exec('chown', ['-R', '--no-dereference', `${ids.uid}:${ids.gid}`, '--', dir]);
}
