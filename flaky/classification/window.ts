/**
 * Counting results in half-open time windows `[from, to)` with binary search over sorted times.
 * Pure helpers; every rule with a window uses them, so the window convention lives in one place.
 */

/** Index of the first element of the ascending `values` that is >= `target`. */
export function lowerBound(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the ascending `times` lie in `[from, to)`. */
export function countInWindow(times: readonly number[], from: number, to: number): number {
  return Math.max(0, lowerBound(times, to) - lowerBound(times, from));
}

export interface RateReading {
  readonly attempts: number;
  readonly failures: number;
  readonly rate: number;
}

/** Attempts and failures in `[from, to)` of a time-sorted series with a prefix count of failures. */
export class FailureSeries {
  private readonly times: readonly number[];
  private readonly failuresBefore: readonly number[];

  constructor(results: readonly { readonly atMs: number; readonly failed: boolean }[]) {
    this.times = results.map((r) => r.atMs);
    const prefix = [0];
    for (const r of results) prefix.push(prefix[prefix.length - 1]! + (r.failed ? 1 : 0));
    this.failuresBefore = prefix;
  }

  read(from: number, to: number): RateReading {
    const start = lowerBound(this.times, from);
    const end = Math.max(start, lowerBound(this.times, to));
    const attempts = end - start;
    const failures = this.failuresBefore[end]! - this.failuresBefore[start]!;
    return { attempts, failures, rate: attempts === 0 ? 0 : failures / attempts };
  }
}
