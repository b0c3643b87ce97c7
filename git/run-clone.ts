/**
 * A clone of one commit of a host's repository in a new directory, for a run: the `checkout` of both
 * git hosts (local and GitHub's mirror).
 *
 * Rules:
 * - `--shared` borrows the repository's objects instead of copying them (the clone lives only as long
 *   as a run), and `origin` is removed, so the run's command cannot push back to the queue's repository
 *   by accident.
 * - HEAD is the commit, detached. With a work tree (the default) its files are written, as the
 *   `command` test runner needs; without one (`workTree: false`) nothing is written: HEAD is only set,
 *   which is all a bundle of the commit needs, and for a large repository it spares writing every file
 *   of its tree for each run.
 * - The caller has checked the sha and that the repository holds the commit, and removes the directory.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { expectSuccess, type Git } from './git-cli';

export interface RunCloneInput {
  /** The repository cloned (bare, or a mirror). */
  source: string;
  sha: string;
  /** Must not exist yet. */
  directory: string;
  /** False: HEAD set to the commit and no file written (default true). */
  workTree?: boolean;
}

export async function cloneForRun(git: Git, input: RunCloneInput): Promise<void> {
  const target = resolve(input.directory);
  await mkdir(dirname(target), { recursive: true });
  await expectSuccess(git, ['clone', '--quiet', '--shared', '--no-checkout', '--', input.source, target], {
    dir: dirname(target),
  });
  if (input.workTree === false) {
    await expectSuccess(git, ['update-ref', '--no-deref', 'HEAD', input.sha], { dir: target });
  } else {
    await expectSuccess(git, ['checkout', '--quiet', '--detach', input.sha], { dir: target });
  }
  await expectSuccess(git, ['remote', 'remove', 'origin'], { dir: target });
}
