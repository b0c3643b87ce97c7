/**
 * A run's head that no earlier run of the queue tested (issue 28, docs/api-compat.md). Composing is a
 * pure function of its inputs (compose-memo.ts), so a flaky retry, or a restart on an unchanged tree,
 * composes the very commit an earlier run tested; on GitHub that commit still carries the earlier
 * run's checks, and the retry could be judged on them. When the composed head is one of `avoid` (the
 * heads of the runs the queue carries), only that last commit is written again: same tree, parents,
 * author and message, its committer date one second later, then two, ... until the id is new.
 *
 * Invariants:
 * - Deterministic: the same commit and the same `avoid` give the same rewrite, so a retried build
 *   activity pushes the same commit.
 * - Bounded: the candidates' dates differ, so their ids differ, and at most `avoid.size + 1` of them
 *   are tried before one is not avoided.
 * - The tree is the composed one: what the run tests, and what the landing proof compares, is unchanged.
 * - The rewrite is computed from the commit's exact bytes, checked against its id first; a commit that
 *   does not round-trip (never one railyard wrote) is refused, not rewritten into something else.
 */
import { createHash } from 'node:crypto';
import { expectSuccess } from './git-cli';
import type { RepoAccess } from './commits';

/** The committer line: `committer <name> <<email>> <seconds> <zone>`. */
const COMMITTER = /^(committer .* )(\d+)( [+-]\d{4})$/;

/** The raw commit object `raw` with its committer date `seconds` later; nothing else changes. */
export function withLaterCommitterDate(raw: string, seconds: number): string {
  const split = raw.indexOf('\n\n');
  const header = split === -1 ? raw : raw.slice(0, split);
  const lines = header.split('\n');
  const at = lines.findIndex((line) => COMMITTER.test(line));
  if (at === -1) throw new Error('the commit has no readable committer line');
  lines[at] = lines[at]!.replace(COMMITTER, (_all, head: string, time: string, zone: string) => {
    return `${head}${Number(time) + seconds}${zone}`;
  });
  return lines.join('\n') + (split === -1 ? '' : raw.slice(split));
}

/** The id git gives a commit object with this content (sha1 for 40-digit ids, sha256 for 64). */
export function commitObjectId(raw: string, format: 'sha1' | 'sha256'): string {
  const body = Buffer.from(raw, 'utf8');
  return createHash(format)
    .update(Buffer.concat([Buffer.from(`commit ${body.length}\0`, 'utf8'), body]))
    .digest('hex');
}

export interface Rewrite {
  raw: string;
  sha: string;
  /** How much later its committer date is. */
  seconds: number;
}

/**
 * The first rewrite of commit `sha` (raw object `raw`) whose id is not in `avoid`: pure, so the same
 * inputs always give the same commit.
 */
export function firstUnusedRewrite(raw: string, sha: string, avoid: ReadonlySet<string>): Rewrite {
  const format = sha.length === 64 ? 'sha256' : 'sha1';
  if (commitObjectId(raw, format) !== sha)
    throw new Error(`commit ${sha} does not round-trip through its text; it is not rewritten`);
  // Distinct dates give distinct ids: among avoid.size + 1 candidates one is not avoided.
  for (let seconds = 1; seconds <= avoid.size + 1; seconds++) {
    const candidate = withLaterCommitterDate(raw, seconds);
    const id = commitObjectId(candidate, format);
    if (!avoid.has(id)) return { raw: candidate, sha: id, seconds };
  }
  throw new Error(`no rewrite of ${sha} within ${avoid.size + 1} seconds is new (a hash collision?)`);
}

/** `headSha` when no earlier run tested it; else its first unused rewrite, written to the repository. */
export async function freshHead(
  repo: RepoAccess,
  headSha: string,
  avoid: readonly string[],
): Promise<string> {
  const avoided = new Set(avoid);
  if (!avoided.has(headSha)) return headSha;
  const raw = await expectSuccess(repo.git, ['cat-file', 'commit', headSha], { dir: repo.dir });
  const rewrite = firstUnusedRewrite(raw, headSha, avoided);
  const written = (
    await expectSuccess(repo.git, ['hash-object', '-t', 'commit', '-w', '--stdin'], {
      dir: repo.dir,
      input: rewrite.raw,
    })
  ).trim();
  if (written !== rewrite.sha)
    throw new Error(`git wrote ${written} for the rewrite ${rewrite.sha} of ${headSha}`);
  return written;
}
