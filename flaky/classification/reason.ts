/**
 * `status.reason` strings, grammar `code:detail` (flaky-detection.md §5). The detail carries the
 * numbers that made the rule fire, so a reader can check the decision without the raw results.
 */
import { type ReasonCode } from './types';
import { type RateReading } from './window';

export interface Reason {
  readonly code: ReasonCode;
  readonly text: string;
}

export function mixedReason(commitSha: string): Reason {
  return {
    code: 'mixed_outcomes_same_commit',
    text: `mixed_outcomes_same_commit:sha=${commitSha.slice(0, 7)}`,
  };
}

/**
 * `stable_failure_rate:0.15>=0.10,n=20,w=72h`. While hysteresis holds the signal the rate is shown
 * against the threshold it still meets (`>=0.05`), or against the sample it lacks (`n=3<20`).
 */
export function stableRateReason(
  reading: RateReading,
  minAttempts: number,
  on: number,
  off: number,
  windowHours: number,
): Reason {
  const rate = reading.rate.toFixed(2);
  const detail =
    reading.attempts < minAttempts
      ? `${rate},n=${reading.attempts}<${minAttempts}`
      : `${rate}>=${ratio(reading.rate >= on ? on : off)},n=${reading.attempts}`;
  return { code: 'stable_failure_rate', text: `stable_failure_rate:${detail},w=${hours(windowHours)}` };
}

export function consecutiveReason(commits: number): Reason {
  return { code: 'consecutive_failing_commits', text: `consecutive_failing_commits:${commits}` };
}

export function brokenRateReason(reading: RateReading): Reason {
  return { code: 'broken_rate', text: `broken_rate:${reading.rate.toFixed(2)},n=${reading.attempts}` };
}

export function plainReason(
  code: 'manual_flag' | 'recovered' | 'stale' | 'no_signal' | 'no_results',
): Reason {
  return { code, text: code };
}

/**
 * A configured threshold: at least two decimals, at most four, no float noise (0.1 → "0.10",
 * 0.125 → "0.125"). Observed rates are shown with two decimals, as in the doc's examples.
 */
export function ratio(value: number): string {
  const trimmed = value.toFixed(4).replace(/0+$/, '');
  const decimals = trimmed.length - trimmed.indexOf('.') - 1;
  return decimals >= 2 ? trimmed : value.toFixed(2);
}

function hours(value: number): string {
  return `${Number(value.toFixed(2))}h`;
}
