/**
 * Why a test's status is what it is, as one sentence a person reads (issue 29: a test page showed a
 * 50 % failure rate next to "healthy" with no word on why: too few runs to judge). Pure, like the
 * rest of the classifier, and from the same pieces it decides with: the history prepared by
 * history.ts (skips and infrastructure uploads left out, the stable set of stable and merge-queue
 * branches), the rate windows read by window.ts, and the repository's own parameters (params.ts), so
 * the numbers it names are the thresholds the classifier really applies.
 *
 * The sentence explains the stored status (`reason` is the classifier's `code:detail`); the counts are
 * read at `now`, so a test classified a while ago shows today's counts beside its reason. Every
 * reason code has its sentence (exhaustive switch).
 */
import { prepareHistory } from './history';
import { type ClassificationParams, HOUR_MS } from './params';
import { type ReasonCode, type TestHistory, type TestStatus } from './types';
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

const percent = (ratio: number) => `${Number((ratio * 100).toFixed(1))} %`;
const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
const hours = (h: number) => (h % 24 === 0 ? `${h / 24} day${h === 24 ? '' : 's'}` : `${h} h`);
const days = (d: number) => `${d} day${d === 1 ? '' : 's'}`;

/** Where the rate rules count runs: the stable branches and the merge queue's branches. */
function stableSet(params: ClassificationParams): string {
  const branches = params.stableBranches.join(', ');
  return `on ${branches || 'the stable branches'} or the merge queue`;
}

/** The `code` of a stored `code:detail` reason, and its detail. */
export function splitReason(reason: string): { code: string; detail: string } {
  const at = reason.indexOf(':');
  return at < 0 ? { code: reason, detail: '' } : { code: reason.slice(0, at), detail: reason.slice(at + 1) };
}

const REASON_CODES: readonly ReasonCode[] = [
  'mixed_outcomes_same_commit',
  'stable_failure_rate',
  'manual_flag',
  'consecutive_failing_commits',
  'broken_rate',
  'recovered',
  'stale',
  'no_signal',
  'no_results',
];
const isReasonCode = (code: string): code is ReasonCode => (REASON_CODES as readonly string[]).includes(code);

/** "Healthy: 2 runs … so far, 20 needed …": the sentence for a stored status and today's evidence. */
export function explainStatus(
  status: { readonly value: TestStatus; readonly reason: string },
  evidence: StatusEvidence,
  params: ClassificationParams,
): string {
  const { code, detail } = splitReason(status.reason);
  const word = status.value === 'healthy' ? 'Healthy' : status.value === 'flaky' ? 'Flaky' : 'Broken';
  const rate = evidence.rate;
  const window = hours(params.rateWindowHours);
  const rateNow =
    rate.attempts < params.rateMinAttempts
      ? `${runs(rate.attempts)} ${stableSet(params)} in the last ${window} so far (${rate.failures} failed); ` +
        `the failure rate judges from ${params.rateMinAttempts}, flaky at ${percent(params.rateOn)} or more`
      : `${percent(rate.rate)} of its ${runs(rate.attempts)} ${stableSet(params)} in the last ${window} failed; ` +
        `flaky at ${percent(params.rateOn)} or more, healthy again below ${percent(params.rateOff)}`;
  if (!isReasonCode(code)) return `${word} (${status.reason}). ${capital(rateNow)}.`;
  switch (code) {
    case 'no_results':
      return evidence.counted === 0
        ? `${word}: no result of it yet on a branch the classifier reads, so nothing to judge.`
        : `${word}: not classified since its first results. ${capital(rateNow)}.`;
    case 'no_signal':
      return `${word}: no commit both passed and failed it, and ${rateNow}.`;
    case 'recovered':
      return (
        `${word} again: after it was flaky or broken, ${params.recoverPasses} passes and ${days(params.recoverDays)} ` +
        `went by without a commit both passing and failing it. ${capital(rateNow)}.`
      );
    case 'stale':
      return (
        `${word}: it has not run for ${days(params.staleDays)} or more` +
        `${evidence.lastRunAt ? '' : ' (no run in the history read)'}, so its old failures no longer count.`
      );
    case 'mixed_outcomes_same_commit': {
      const sha = /sha=([0-9a-f]+)/i.exec(detail)?.[1];
      return (
        `${word}: one commit${sha ? ` (${sha})` : ''} both passed and failed it within ${days(params.mixedLookbackDays)}; ` +
        `it heals after ${params.recoverPasses} passes and ${days(params.recoverDays)} without that.`
      );
    }
    case 'stable_failure_rate':
      return `${word}: ${rateNow}.`;
    case 'manual_flag':
      return `${word}: flagged by hand.`;
    case 'consecutive_failing_commits':
      return (
        `${word}: its last ${detail || params.brokenConsecutiveCommits} commits ${stableSet(params)} only failed ` +
        `(${params.brokenConsecutiveCommits} in a row make a test broken).`
      );
    case 'broken_rate': {
      const b = evidence.brokenRate;
      return (
        `${word}: ${b.failures} of its ${runs(b.attempts)} ${stableSet(params)} in the last ` +
        `${hours(params.brokenRateWindowHours)} failed; broken at ${percent(params.brokenRateOn)} or more ` +
        `from ${params.brokenRateMinAttempts} runs, until it falls below ${percent(params.brokenRateOff)}.`
      );
    }
    default: {
      const never: never = code;
      return String(never);
    }
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
