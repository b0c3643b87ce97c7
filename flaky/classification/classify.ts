/**
 * classify(history, params, T): one test's status at the evaluation time T, following
 * flaky-detection.md §5. Pure: no clock, no I/O, and the same set of results gives the same
 * answer whatever their order or duplication (history.ts).
 *
 * Precedence (first match wins): healthy/`stale` when the test has not run for STALE_DAYS and is
 * not manually flagged; `broken` when S3 (consecutive failing commits) or S4 (broken rate);
 * `flaky` when S1 (same-commit disagreement), S2 (stable failure rate) or a manual flag;
 * else healthy (`recovered` after a flaky/broken spell, `no_signal` otherwise, `no_results` if it
 * never ran).
 *
 * Two rules remember the past (the rate hysteresis and the S1 latch), and `timestamp` is when the
 * status last changed, so the status is replayed through time rather than read off at T. Replay
 * visits only the instants where some reading can change — a result arriving, a result leaving a
 * window, evidence reaching RECOVER_DAYS, a test going stale, the manual flag — and T itself. Each
 * instant has a cause time: the result's time, or the window boundary; that is the `timestamp`
 * when the status changes there.
 */
import { type ClassificationParams, DAY_MS, HOUR_MS } from './params';
import { type PreparedHistory, prepareHistory } from './history';
import { type MixedContext, mixedEvidence } from './mixed';
import { type Instant, replay } from './replay';
import { type Classification, type ObservedResult, type TestHistory, type UploadSummary } from './types';

export function classify(
  history: TestHistory,
  params: ClassificationParams,
  evaluationTime: Date,
): Classification {
  const now = evaluationTime.getTime();
  const prepared = prepareHistory(history, params, now);
  const evidence = mixedEvidence(prepared.counted, params.mixedLookbackDays * DAY_MS);
  const mixed: MixedContext = {
    evidence,
    evidenceTimes: evidence.map((e) => e.atMs),
    passTimes: prepared.counted.filter((r) => !r.failed).map((r) => r.atMs),
    recoverMs: params.recoverDays * DAY_MS,
    recoverPasses: params.recoverPasses,
  };
  const flaggedAt = history.manualFlag?.at.getTime();
  const instants = candidateInstants(prepared, mixed, flaggedAt, params, now);
  return replay({ prepared, mixed, flaggedAt, params, instants, now });
}

/** Classifies every test in a batch of results; the uploads and flags are shared lookups. */
export function classifyAll(
  results: readonly ObservedResult[],
  uploads: readonly UploadSummary[],
  params: ClassificationParams,
  evaluationTime: Date,
  manualFlags: ReadonlyMap<string, Date> = new Map(),
): Map<string, Classification> {
  const byTest = new Map<string, ObservedResult[]>();
  for (const result of results) byTest.set(result.testId, [...(byTest.get(result.testId) ?? []), result]);
  const out = new Map<string, Classification>();
  for (const [testId, testResults] of [...byTest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const flag = manualFlags.get(testId);
    out.set(
      testId,
      classify(
        { results: testResults, uploads, ...(flag ? { manualFlag: { at: flag } } : {}) },
        params,
        evaluationTime,
      ),
    );
  }
  return out;
}

function candidateInstants(
  prepared: PreparedHistory,
  mixed: MixedContext,
  flaggedAt: number | undefined,
  params: ClassificationParams,
  now: number,
): Instant[] {
  const rateWindow = params.rateWindowHours * HOUR_MS;
  const brokenWindow = params.brokenRateWindowHours * HOUR_MS;
  const stale = params.staleDays * DAY_MS;
  const causes = new Map<number, number>();
  // `instant` is the first evaluation time at which the change is visible: one millisecond after
  // an arrival or a window edge (windows are half-open), exactly at a "≥ RECOVER_DAYS" boundary.
  const add = (instant: number, cause: number) => {
    if (instant > now) return;
    const seen = causes.get(instant);
    if (seen === undefined || cause < seen) causes.set(instant, cause);
  };
  for (const at of prepared.ran) {
    add(at + 1, at);
    add(at + stale + 1, at + stale);
  }
  for (const { atMs } of prepared.stable) {
    add(atMs + rateWindow + 1, atMs + rateWindow);
    add(atMs + brokenWindow + 1, atMs + brokenWindow);
  }
  for (const at of mixed.evidenceTimes) {
    add(at + mixed.recoverMs, at + mixed.recoverMs);
    add(at + brokenWindow + 1, at + brokenWindow);
  }
  if (flaggedAt !== undefined) add(flaggedAt + 1, flaggedAt);
  add(now, now);
  return [...causes].map(([at, cause]) => ({ at, cause })).sort((a, b) => a.at - b.at);
}
