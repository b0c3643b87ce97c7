/**
 * Failure rate: the queue's own estimate of the chance that a PR breaks the tree it is tested in.
 *
 * Rule: every PR that merges is a good outcome and every PR blamed for a failed run (a culprit,
 * pending-failure.ts) a bad one; the rate is culprits / (culprits + merged). Each new outcome first
 * multiplies the weight of all earlier ones by KEEP = 1 - 1/1024, so half the weight is on the last
 * ~700 PRs: the rate follows a queue whose PRs start breaking more (or less) often, without jumping
 * at every failure. It starts from PRIOR, 1 in 20 (the middle of the range the merge-queue anchors
 * consider), weighted like 200 PRs and fading like any other outcome: the first few culprits of a
 * new queue do not swing its depth, and a queue whose rate differs moves off it within a few
 * hundred PRs.
 * A flake blamed on a PR counts as a culprit too: for the runs stacked on it, it is just as fatal.
 * Invariants:
 * - Only a queue that can use the rate observes: batching on and a speculation threshold set
 *   (speculation-threshold.ts), or adaptive batching (adaptive-batching.ts). Any other queue keeps
 *   exactly the state it had before the rate existed; a queue that turns batching off keeps its
 *   estimate, unchanged, for later.
 * - Plain JSON, two numbers, each at most 1024 (1 / (1 - KEEP)), whatever the history.
 * - Sums and products of doubles only (no Math.pow), so a replay computes the same bits.
 * - The object is replaced, never mutated: openDraft shares it with the input state.
 */
import { type QueueConfig } from './config';
import { type Draft } from './draft';
import { type FailureRate, type QueueState } from './model';

export const KEEP = 1 - 1 / 1024;
export const PRIOR: FailureRate = { merged: 190, culprits: 10 };

export function observeMerged(d: Draft, prs: number): void {
  observe(d, { merged: prs, culprits: 0 });
}

export function observeCulprit(d: Draft): void {
  observe(d, { merged: 0, culprits: 1 });
}

/** The estimated chance that one PR breaks its run, in [0, 1]. */
export function failureRateOf(state: QueueState): number {
  const { merged, culprits } = state.failureRate ?? PRIOR;
  return culprits / (culprits + merged);
}

/** One PR at a time, each aging the ones before it, so a weight never exceeds 1 / (1 - KEEP). */
function observe(d: Draft, outcome: FailureRate): void {
  if (!observes(d.state.config)) return;
  let { merged, culprits } = d.state.failureRate ?? PRIOR;
  for (let i = 0; i < outcome.merged + outcome.culprits; i += 1) {
    const good = i < outcome.merged;
    merged = merged * KEEP + (good ? 1 : 0);
    culprits = culprits * KEEP + (good ? 0 : 1);
  }
  d.state.failureRate = { merged, culprits };
}

function observes(config: QueueConfig): boolean {
  return config.batch && (config.speculationThreshold > 0 || config.batchingMode === 'adaptive');
}
