/**
 * The numbers behind a test's status, read the way the classifier decides (issue 29: a page showed a
 * 50 % failure rate next to "healthy" with no word on why): the history prepared by history.ts (skips
 * and infrastructure uploads left out, the stable set of stable and merge-queue branches) and the rate
 * windows read by window.ts, with the repository's own parameters (params.ts). Pure.
 *
 * The classifier only counts here; the sentence that words these numbers is the contract's
 * (contract/test-status-why.ts, beside the other words of flaky statuses in contract/words.ts), which
 * this room may not import.
 */
import { prepareHistory } from './history';
import { type ClassificationParams, HOUR_MS } from './params';
import { type TestHistory } from './types';
import { FailureSeries, type RateReading } from './window';

export interface StatusEvidence {
  /** Stable-set attempts and failures in the failure-rate window (W_RATE) before `now`. */
  readonly rate: RateReading;
  /** The same in the broken-rate window (W_BRK). */
  readonly brokenRate: RateReading;
  /** Non-skipped results on any branch in the history read, infrastructure uploads left out. */
  readonly counted: number;
  /** When it last ran (any non-skipped result); null if never in the history read. */
  readonly lastRunAt: Date | null;
}

export function statusEvidence(
  history: TestHistory,
  params: ClassificationParams,
  now: Date,
): StatusEvidence {
  const at = now.getTime();
  const prepared = prepareHistory(history, params, at);
  const series = new FailureSeries(prepared.stable);
  const last = prepared.ran.at(-1);
  return {
    rate: series.read(at - params.rateWindowHours * HOUR_MS, at),
    brokenRate: series.read(at - params.brokenRateWindowHours * HOUR_MS, at),
    counted: prepared.counted.length,
    lastRunAt: last === undefined ? null : new Date(last),
  };
}
