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
 * UPPER BOUND ONLY, not a ceiling any queue can reach (§5.3 "before bisection overhead"):
 * B (1 - (1 - P_B)^C) / (P_B T) with P_B = 1 - (1-p)^B. It counts every PR of a failed batch as
 * resolved when the batch fails, though on average B(1 - p/P_B) of them are good and still need a
 * passing run. Kept to compare with older tables; rows are judged against `pipelinedBatchCeiling`.
 */
export function pipelinedBatchUpperBound(b: number, c: number, p: number, ciMinutes: number): number {
  const pb = 1 - (1 - p) ** b;
  return b * optimisticBound(c, pb, ciMinutes);
}

/**
 * §5.3 corrected ceiling for batches inside an optimistic pipeline, bisected beside the line (on
 * slots of their own, taking no main-line time), each good PR of a failed batch re-tested once in
 * the line. Every fresh batch brings kappa * P_B re-test batches with it (kappa = 1 - p/P_B, the
 * good share of a failed batch), which dilutes the line's failure probability to
 * P' = P_B / (1 + kappa P_B): X = B (1 - (1 - P')^C) / (P_B T).
 * At p = 5%, T = 30 min: B=8 C=4 33.4/h, B=4 C=4 22.0/h, B=8 C=1 12.4/h, B=4 C=1 7.0/h.
 */
export function pipelinedBatchCeiling(b: number, c: number, p: number, ciMinutes: number): number {
  if (p === 0) return (b * c * 60) / ciMinutes;
  const pb = 1 - (1 - p) ** b;
  const kappa = 1 - p / pb;
  const diluted = pb / (1 + kappa * pb);
  return (b * (1 - (1 - diluted) ** c)) / (pb * (ciMinutes / 60));
}

/** Dorfman's runs per PR for test-once-then-split: 1/B + 1 - (1-p)^B. */
export function dorfmanRunsPerPr(b: number, p: number): number {
  return 1 / b + 1 - (1 - p) ** b;
}

/** Group-testing entropy floor H(p), runs per PR. */
export function entropyFloor(p: number): number {
  return -p * Math.log2(p) - (1 - p) * Math.log2(1 - p);
}
