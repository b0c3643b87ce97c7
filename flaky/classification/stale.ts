/**
 * Staleness: with no non-skipped result in [T − STALE_DAYS, T) and no manual flag, a test is
 * healthy with reason `stale`, and every latch (S1 evidence, rate hysteresis, the consecutive-
 * commit run) is cleared, so old evidence cannot resurface when the test runs again. Results of
 * infrastructure uploads count here: the test did run.
 */
import { lowerBound } from './window';

export type Presence = 'never_ran' | 'stale' | 'running';

export function presenceAt(ranTimes: readonly number[], staleMs: number, now: number): Presence {
  const before = lowerBound(ranTimes, now);
  if (before === 0) return 'never_ran';
  const latest = ranTimes[before - 1]!;
  return latest < now - staleMs ? 'stale' : 'running';
}
