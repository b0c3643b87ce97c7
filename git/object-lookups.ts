/**
 * Several lookups of refs and objects in one repository with one git process (`git cat-file
 * --batch-command`, git 2.36 or later), where the plumbing commands start one process each.
 *
 * Why: in the queue bench 60 % of the 26 git processes per merged PR looked up one ref or one object
 * (bench/README.md, "Stop 51"), and a process costs its starter about as much CPU as the lookup itself.
 *
 * Rules:
 *  - A lookup names what it wants as `rev-parse` would (`refs/heads/main^{commit}`, `<sha>^{commit}`,
 *    `<sha>:<path>`). Names come validated by the callers (names.ts) and hold no line break: they go on
 *    standard input after a command word, never on the command line, so none is read as an option.
 *  - `info` answers the object's id, type and size; `contents` also its bytes, decoded as UTF-8 like
 *    every other reader here. Only the last lookup may ask for contents: bytes that are not UTF-8
 *    decode to another length, and nothing after them may depend on that length.
 *  - A name that resolves to no object, or to more than one, is `missing`. A process that fails, or an
 *    answer that cannot be read, is an error, never a guess.
 *  - Replace refs count as for `rev-parse` and `cat-file <type>`: the id is the name's own, the
 *    contents are those of its replacement if it has one.
 */
import type { RepoAccess } from './commits';

export type Lookup = { kind: 'info'; name: string } | { kind: 'contents'; name: string };

export type LookupAnswer =
  { kind: 'found'; sha: string; type: string; size: number; contents: string | null } | { kind: 'missing' };

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (commit|tree|blob|tag) (\d+)$/;

/** One answer per lookup, in order. */
export async function lookUp(repo: RepoAccess, lookups: readonly Lookup[]): Promise<LookupAnswer[]> {
  if (lookups.length === 0) return [];
  lookups.forEach((l, i) => {
    if (/[\r\n]/.test(l.name) || l.name.length === 0)
      throw new Error(`git lookup ${i + 1}: the name is empty or holds a line break`);
    if (l.kind === 'contents' && i !== lookups.length - 1)
      throw new Error(`git lookup ${i + 1}: only the last lookup may ask for contents`);
  });
  const input = lookups.map((l) => `${l.kind} ${l.name}\n`).join('');
  const result = await repo.git(['cat-file', '--batch-command'], { dir: repo.dir, input });
  if (result.exitCode !== 0)
    throw new Error(`git cat-file --batch-command failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
  const out = result.stdout;
  const answers: LookupAnswer[] = [];
  let at = 0;
  for (const lookup of lookups) {
    const end = out.indexOf('\n', at);
    if (end === -1) throw new Error(`git cat-file --batch-command: no answer for ${lookup.name}`);
    const header = out.slice(at, end);
    at = end + 1;
    if (header === `${lookup.name} missing` || header === `${lookup.name} ambiguous`) {
      answers.push({ kind: 'missing' });
      continue;
    }
    const match = HEADER.exec(header);
    if (!match) throw new Error(`git cat-file --batch-command: unreadable answer for ${lookup.name}`);
    let contents: string | null = null;
    if (lookup.kind === 'contents') {
      // The object's bytes and one line feed, to the end (contents are asked for last).
      if (out.length < at + 1 || !out.endsWith('\n'))
        throw new Error(`git cat-file --batch-command: cut contents of ${lookup.name}`);
      contents = out.slice(at, out.length - 1);
      at = out.length;
    }
    answers.push({ kind: 'found', sha: match[1]!, type: match[2]!, size: Number(match[3]), contents });
  }
  return answers;
}
