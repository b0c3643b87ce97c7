/**
 * Stale git lock files. Git takes a `<file>.lock` (a ref, the index, packed-refs, config) for the few
 * milliseconds an update needs and renames it into place. A process killed in that window (a worker or
 * a whole container SIGKILLed) leaves the lock behind, and every later update of that file fails with
 * "Unable to create '<file>.lock': File exists" until someone removes it: without this, one badly timed
 * crash stalls a queue for good (the chaos run found it).
 *
 * Rule: a lock named by git's error, inside the repository the command ran in, and older than
 * STALE_LOCK_MS is stale and may be removed. Git holds a lock far shorter than that even on a loaded
 * machine, so a live writer's lock is never taken; a younger lock makes the command fail as before, and
 * the activity's retry finds it stale later.
 */
import fs from 'node:fs';
import path from 'node:path';

export const STALE_LOCK_MS = 10_000;

const LOCK_EXISTS = /Unable to create '([^']+\.lock)': File exists/;

export interface StaleLock {
  path: string;
  ageMs: number;
}

/**
 * The lock git's `stderr` names if it is stale: inside `dir` (the repository the command ran in), a
 * regular file, last modified at least `maxAgeMs` before `now`. Null otherwise.
 */
export function staleLockOf(
  stderr: string,
  dir: string,
  now: number,
  maxAgeMs = STALE_LOCK_MS,
): StaleLock | null {
  const named = LOCK_EXISTS.exec(stderr)?.[1];
  if (named === undefined) return null;
  const lock = path.resolve(dir, named);
  const root = path.resolve(dir);
  if (!lock.startsWith(root + path.sep)) return null;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(lock);
  } catch {
    return null; // gone meanwhile: its writer finished
  }
  if (!stat.isFile()) return null;
  const ageMs = now - stat.mtimeMs;
  return ageMs >= maxAgeMs ? { path: lock, ageMs } : null;
}

/** Removes a stale lock; false when it was gone already. */
export function removeStaleLock(lock: StaleLock): boolean {
  try {
    fs.unlinkSync(lock.path);
    return true;
  } catch {
    return false;
  }
}
