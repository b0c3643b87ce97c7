/**
 * Where `npm start` puts PostgreSQL's cluster when it runs as root (scripts/lib/pg-placement.ts): under
 * a folder its unprivileged user cannot enter, the cluster moves to a per-clone folder under /var/tmp,
 * and a name there that another local user could have prepared (a symlink, a folder of another owner or
 * writable by others) is refused with the fix in the message. A full `npm start` from a mode-0700
 * folder is in start-stop.test.ts. Root only: only root starts PostgreSQL as another user.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { placeCluster, relocatedParent, unreachableAncestor } from '../../../scripts/lib/pg-placement';
import { SetupError } from '../../../scripts/lib/postgres';

const asRoot = process.getuid?.() === 0 ? it : it.skip;
const nobody = { uid: 65534, gid: 65534 };
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-place-'));
});
afterEach(() => {
  fs.rmSync(relocatedParent(path.join(dir, 'closed', 'pg')), { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

it('finds the first folder the user cannot enter', () => {
  fs.mkdirSync(path.join(dir, 'open', 'closed', 'deeper'), { recursive: true });
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.join(dir, 'open'), 0o755);
  fs.chmodSync(path.join(dir, 'open', 'closed'), 0o700);
  expect(unreachableAncestor(path.join(dir, 'open', 'closed', 'deeper', 'pg'), nobody)).toBe(
    path.join(dir, 'open', 'closed'),
  );
  expect(unreachableAncestor(path.join(dir, 'open', 'pg'), nobody)).toBeUndefined();
});

asRoot('keeps a reachable cluster in place and moves an unreachable one to a root-owned 0755 folder', () => {
  fs.chmodSync(dir, 0o755);
  expect(placeCluster(path.join(dir, 'pg'), nobody)).toEqual({ dataDir: path.join(dir, 'pg') });
  fs.mkdirSync(path.join(dir, 'closed'), { mode: 0o700 });
  const wanted = path.join(dir, 'closed', 'pg');
  const placed = placeCluster(wanted, nobody);
  expect(placed.dataDir).toBe(path.join(relocatedParent(wanted), 'data'));
  expect(placed.movedBecause).toContain(`cannot enter ${path.join(dir, 'closed')} (mode 700)`);
  const st = fs.lstatSync(relocatedParent(wanted));
  expect([st.isDirectory(), st.uid, st.mode & 0o777]).toEqual([true, 0, 0o755]);
  expect(placeCluster(wanted, nobody)).toEqual(placed); // the next start finds the same place
});

asRoot.each([
  ['a symlink', (p: string) => fs.symlinkSync(os.tmpdir(), p)],
  ['a folder of another user', (p: string) => (fs.mkdirSync(p), fs.chownSync(p, 65534, 65534))],
  ['a folder writable by others', (p: string) => (fs.mkdirSync(p), fs.chmodSync(p, 0o777))],
])('refuses a relocation folder that is %s', (_what, prepare) => {
  fs.mkdirSync(path.join(dir, 'closed'), { mode: 0o700 });
  const wanted = path.join(dir, 'closed', 'pg');
  prepare(relocatedParent(wanted));
  expect(() => placeCluster(wanted, nobody)).toThrow(SetupError);
  expect(() => placeCluster(wanted, nobody)).toThrow(
    /is not a root-owned directory writable only by root; remove it/,
  );
});
