/**
 * Bounded fan-out of workflow queries: each query of a finished run replays it on a worker, so a read
 * that asks many workflows (a page of PRs, every run in progress) asks QUERY_BATCH at a time.
 *
 * Invariant: the answers come back in the order of the items.
 */
export const QUERY_BATCH = 10;

export async function inBatches<T, R>(items: readonly T[], ask: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let i = 0; i < items.length; i += QUERY_BATCH)
    answers.push(...(await Promise.all(items.slice(i, i + QUERY_BATCH).map(ask))));
  return answers;
}
