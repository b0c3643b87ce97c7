/**
 * Bisection: finding the PR that broke a failed batch.
 *
 * Rule: a blamed batch (its predecessors merged, its successors waited for) is split, in line order,
 * into m chunks, and chunk j is tested on tip + chunks 1..j-1 by a bisection run. These are prefix
 * trees, so the ordinary machinery decides them: the chunks are groups in the line, chunk 1 passing
 * merges, the first failing chunk is blamed in turn (a single PR fails, a larger chunk is bisected
 * again), and the chunks behind it, whose trees hold a culprit, go back to `pending` as ordinary PRs
 * to be batched again. Several culprits in one batch are found one after the other.
 * - m uses the bisection slots fully: with `bisection_skip_redundant_tests` the last chunk's tree is
 *   the batch's own, already known to fail, so m = bisectionConcurrency + 1 chunks need
 *   bisectionConcurrency runs; without it the last chunk is run again (which also catches a flaky
 *   batch failure) and m = bisectionConcurrency. Always 2 <= m <= batch size; one bisection slot
 *   gives binary bisection.
 * - Bisection runs use `bisectionConcurrency`, never the main `concurrency`.
 * Invariants: the runs built on the failed batch are restarted (`BISECTION_REQUIRED`): their tree
 * holds a culprit. Nothing new starts on top of the chunks until they resolve (pending-failure.ts),
 * so in single mode the line waits for the bisection; in parallel mode only that lane does.
 */
import { type QueueConfig } from './config';
import { type Draft, membersOf, note, transition } from './draft';
import { createGroup, dependentsOf, dissolveGroup } from './groups';
import { type Group } from './model';

export function bisect(d: Draft, failed: Group): void {
  for (const g of dependentsOf(d, failed)) {
    if (d.state.groups.includes(g)) dissolveGroup(d, g, 'BISECTION_REQUIRED');
  }
  const members = membersOf(d, failed);
  d.state.groups = d.state.groups.filter((g) => g !== failed);
  const chunks = splitIntoChunks(members, chunkCount(d.state.config, members.length));
  for (const e of members) {
    e.group = null;
    transition(d, e, { to: 'pending', reason: 'BISECTION_REQUIRED' });
  }
  // Chunk j is tested on the chunks before it; recording that lets invalidation.ts dissolve the
  // chunks behind a culprit before they ever run.
  const under: number[] = [...failed.ahead];
  for (const chunk of chunks) {
    const group = createGroup(d, chunk, { bisection: true, direct: false, status: 'waiting' });
    group.ahead = [...under];
    under.push(...group.prs);
  }
  note(d, failed.prs, 'BISECTION_REQUIRED');
}

export function chunkCount(config: QueueConfig, size: number): number {
  const skip = config.optimizationMode === 'bisection_skip_redundant_tests';
  const wanted = skip ? config.bisectionConcurrency + 1 : config.bisectionConcurrency;
  return Math.min(size, Math.max(2, wanted));
}

/** Splits in order into m chunks whose sizes differ by at most one, larger chunks first. */
export function splitIntoChunks<T>(items: readonly T[], m: number): T[][] {
  const count = Math.max(1, Math.min(m, items.length));
  const base = Math.floor(items.length / count);
  const extra = items.length % count;
  const chunks: T[][] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    const size = base + (i < extra ? 1 : 0);
    chunks.push(items.slice(at, at + size));
    at += size;
  }
  return chunks.filter((c) => c.length > 0);
}
