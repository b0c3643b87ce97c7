/**
 * Closed forms from merge-queue-anchors.md §5 (fixed CI time T, independent bad PRs with
 * probability p, no flakes). Rates are PRs resolved (merged or ejected) per hour.
 */

/** §5.1 serial: one PR per CI duration. */
export function serialBound(ciMinutes: number): number {
  return 60 / ciMinutes;
}

/** §5.2 optimistic parallel, depth C: R(C, p) = (1 - (1-p)^C) / p PRs per generation of length T. */
export function optimisticBound(c: number, p: number, ciMinutes: number): number {
  if (p === 0) return (c * 60) / ciMinutes;
  return ((1 - (1 - p) ** c) / p) * (60 / ciMinutes);
}

/** §5.3 serial batches with binary bisection: B / (T [1 + 2 (1 - q_B) log2 B]). */
export function serialBatchBound(b: number, p: number, ciMinutes: number): number {
  const q = (1 - p) ** b;
  return b / ((ciMinutes / 60) * (1 + 2 * (1 - q) * Math.log2(b)));
}

/**
 * §5.3 batches inside an optimistic pipeline, before bisection overhead (so an upper bound):
 * B (1 - (1 - P_B)^C) / (P_B T) with P_B = 1 - (1-p)^B.
 */
export function pipelinedBatchBound(b: number, c: number, p: number, ciMinutes: number): number {
  const pb = 1 - (1 - p) ** b;
  return b * optimisticBound(c, pb, ciMinutes);
}

/** Dorfman's runs per PR for test-once-then-split: 1/B + 1 - (1-p)^B. */
export function dorfmanRunsPerPr(b: number, p: number): number {
  return 1 / b + 1 - (1 - p) ** b;
}

/** Group-testing entropy floor H(p), runs per PR. */
export function entropyFloor(p: number): number {
  return -p * Math.log2(p) - (1 - p) * Math.log2(1 - p);
}
