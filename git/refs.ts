/**
 * Ref updates, each one atomic in git (`update-ref` with an old value) so that a concurrent writer is
 * detected instead of overwritten. When an update fails the ref is read again to tell "someone else
 * already did exactly this" (success, for idempotency) from "someone else did something else".
 */
import { readRef, type RepoAccess } from './commits';

export type CompareAndSwap =
  { kind: 'swapped' } | { kind: 'already'; sha: string } | { kind: 'moved'; actualSha: string | null };

/** Moves `ref` from `expectedSha` to `newSha`; a ref already at `newSha` counts as done. */
export async function compareAndSwap(
  repo: RepoAccess,
  ref: string,
  expectedSha: string,
  newSha: string,
  reason: string,
): Promise<CompareAndSwap> {
  const result = await repo.git(['update-ref', '-m', reason, ref, newSha, expectedSha], { dir: repo.dir });
  if (result.exitCode === 0) return { kind: 'swapped' };
  const actual = await readRef(repo, ref);
  if (actual === newSha) return { kind: 'already', sha: newSha };
  if (actual === expectedSha) {
    throw new Error(`git update-ref ${ref} failed although the ref is unchanged: ${result.stderr.trim()}`);
  }
  return { kind: 'moved', actualSha: actual };
}

/**
 * Creates `ref` at `sha` unless it exists. An existing ref at the same sha is the earlier run of the
 * same build; at another sha it is a different build under the same name, which is a caller bug.
 */
export async function createRefOnce(repo: RepoAccess, ref: string, sha: string): Promise<void> {
  const result = await repo.git(['update-ref', '--stdin'], {
    dir: repo.dir,
    input: `create ${ref} ${sha}\n`,
  });
  if (result.exitCode === 0) return;
  const actual = await readRef(repo, ref);
  if (actual === sha) return;
  if (actual !== null) throw new Error(`${ref} already exists at ${actual}, not at the rebuilt ${sha}`);
  throw new Error(`git update-ref create ${ref} failed: ${result.stderr.trim()}`);
}

/** Deletes `ref` if it exists; returns whether this call deleted it. */
export async function deleteRefIfPresent(repo: RepoAccess, ref: string): Promise<boolean> {
  const current = await readRef(repo, ref);
  if (current === null) return false;
  const result = await repo.git(['update-ref', '-d', ref, current], { dir: repo.dir });
  if (result.exitCode === 0) return true;
  if ((await readRef(repo, ref)) === null) return false;
  throw new Error(`git update-ref -d ${ref} failed: ${result.stderr.trim()}`);
}
