/**
 * Where `npm start`'s PostgreSQL cluster lives. PostgreSQL refuses to run as root, so as root it runs as
 * the unprivileged `railyard-pg` (postgres.ts), which must be able to search every directory above its
 * data directory. A clone under a mode-700 folder (root's home, /root) cannot be reached that way.
 *
 * Rule: the cluster lives at the wanted place (.data/pg) whenever its user can reach it, or a cluster is
 * already there. Otherwise it moves to a per-clone directory outside the clone,
 * `/var/tmp/railyard-pg-<hash of the wanted path>/data` (os.tmpdir() when /var/tmp is missing).
 * Invariants: the per-clone parent is created by root, mode 0755, and is refused (with the fix in the
 * message) when it exists as anything else — a symlink, another owner, writable by others — since any
 * local user can create names under /var/tmp. /var/tmp, unlike /tmp, survives reboots.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAsUser, SetupError, type RunAs } from './postgres';

export interface Placement {
  dataDir: string;
  /** Set when the cluster lives elsewhere than wanted: why, in one sentence. */
  movedBecause?: string;
}

/** The first directory at or above `dir` that `user` cannot search (enter), if any. */
export function unreachableAncestor(dir: string, user: RunAs): string | undefined {
  let current = path.resolve(dir);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of chain) {
    let st: fs.Stats;
    try {
      st = fs.statSync(d);
    } catch {
      return undefined; // does not exist yet: created later by root, mode 0700, owned by the user
    }
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return d;
  }
  return undefined;
}

export function ensureSafeParent(parent: string): void {
  try {
    fs.mkdirSync(parent, { mode: 0o755 });
    fs.chmodSync(parent, 0o755); // the umask may have narrowed it
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = fs.lstatSync(parent);
  if (!st.isDirectory() || st.isSymbolicLink() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new SetupError(
      `${parent} exists but is not a root-owned directory writable only by root; remove it (rm -rf ${parent}) and run npm start again.`,
    );
  }
}

/** The per-clone folder outside the clone that holds a relocated cluster (its `data` subfolder). */
export function relocatedParent(wanted: string, prefix = 'railyard-pg'): string {
  const hash = createHash('sha256').update(path.resolve(wanted)).digest('hex').slice(0, 12);
  const base = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
  return path.join(base, `${prefix}-${hash}`);
}

/** Picks the data directory of the cluster wanted at `wanted` (see the rule above). */
export function placeCluster(wanted: string, runAs: RunAs | null = runAsUser()): Placement {
  if (!runAs || fs.existsSync(path.join(wanted, 'PG_VERSION'))) return { dataDir: wanted };
  const blocked = unreachableAncestor(wanted, runAs);
  if (!blocked) return { dataDir: wanted };
  const parent = relocatedParent(wanted);
  try {
    ensureSafeParent(parent);
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw new SetupError(
      `PostgreSQL runs as an unprivileged user that cannot enter ${blocked}, and ${parent} could not be created (${(err as Error).message}); clone railyard outside ${blocked} or set DATABASE_URL.`,
    );
  }
  return {
    dataDir: path.join(parent, 'data'),
    movedBecause: `PostgreSQL runs as an unprivileged user that cannot enter ${blocked} (mode ${(fs.statSync(blocked).mode & 0o777).toString(8)})`,
  };
}
