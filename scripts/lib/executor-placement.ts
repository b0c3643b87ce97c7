/**
 * Where `npm start`'s executor keeps its checkouts (issue 17). A root executor starts each test run's
 * sandbox as nobody (executor/sandbox.ts), which opens the checkout by path: every folder
 * above it must be searchable by nobody. A clone under a mode-700 folder (/root) cannot be, so there the
 * work root moves out of the clone, like PostgreSQL's data (pg-placement.ts), to a root-owned per-clone
 * folder `/var/tmp/railyard-executor-<hash of the wanted path>`.
 */
import path from 'node:path';
import { ensureSafeParent, relocatedParent, unreachableAncestor } from './pg-placement';

const NOBODY = { uid: 65534, gid: 65534 };

export function placeExecutorWorkRoot(wanted: string): { dir: string; movedBecause?: string } {
  if (process.getuid?.() !== 0) return { dir: wanted };
  const blocked = unreachableAncestor(wanted, NOBODY);
  if (!blocked) return { dir: wanted };
  const parent = relocatedParent(wanted, 'railyard-executor');
  ensureSafeParent(parent);
  return {
    dir: path.join(parent, 'work'),
    movedBecause: `test runs start as nobody, who cannot enter ${blocked}`,
  };
}
