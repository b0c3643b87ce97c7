/**
 * The branch heads of a bare repository, read from its files instead of by spawning git: the fake CI
 * loops of the GitHub harnesses read them every 150 ms for the whole of a story, and a `git
 * for-each-ref` from the jest process each time costs a fork of that large process (a few hundred per
 * file; spawnSync also stalls the worker running in the same process).
 *
 * Rule: the files backend only (git's default; the fake's bare repositories are made by `git init`):
 * loose refs under refs/heads/ override packed-refs. git writes each loose ref through a lock file and a
 * rename, so a read sees a ref's old or new value, never half of one; a ref deleted while the tree is
 * walked is simply missing from this round.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Branch name (without refs/heads/) → commit, for every branch whose name starts with `prefix`. */
export function readBranchHeads(bare: string, prefix = ''): Map<string, string> {
  const heads = new Map<string, string>();
  let packed = '';
  try {
    packed = readFileSync(join(bare, 'packed-refs'), 'utf8');
  } catch {
    /* no packed refs yet */
  }
  for (const line of packed.split('\n')) {
    const [sha, ref] = line.split(' ');
    if (sha && ref?.startsWith('refs/heads/') && SHA.test(sha))
      heads.set(ref.slice('refs/heads/'.length), sha);
  }
  const walk = (dir: string, name: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // removed meanwhile
    }
    for (const entry of entries) {
      if (entry.name.endsWith('.lock')) continue;
      const path = join(dir, entry.name);
      const branch = name ? `${name}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path, branch);
      else {
        try {
          const sha = readFileSync(path, 'utf8').trim();
          if (SHA.test(sha)) heads.set(branch, sha);
        } catch {
          /* deleted meanwhile */
        }
      }
    }
  };
  walk(join(bare, 'refs', 'heads'), '');
  if (prefix) for (const branch of [...heads.keys()]) if (!branch.startsWith(prefix)) heads.delete(branch);
  return heads;
}
