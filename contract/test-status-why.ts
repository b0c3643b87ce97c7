/**
 * Why a test's status is what it is, as the one sentence its page shows (issue 29: a test page showed
 * a 50 % failure rate next to "healthy" with no word on why: too few runs to judge). "Healthy: no
 * commit both passed and failed it, and 2 runs on main, master or the merge queue in the last 3 days
 * so far (1 failed); the failure rate judges from 20, flaky at 10 % or more."
 *
 * Ownership: the words of flaky statuses and their reasons live in the contract, words.ts for a word
 * or a clause and this module for the sentence with numbers; the classifier only counts
 * (flaky/classification/evidence.ts reads the history the way it decides) and never words anything.
 * The classifier's types are spelled here by shape (the contract imports nothing of flaky/), and
 * passing its own values to `explainTestStatus` holds them compatible at compile time.
 *
 * Rules: the sentence explains the stored status (`reason` is the classifier's `code:detail`) with
 * the counts read at `now`; every reason code has its sentence (exhaustive switch); a code the words
 * do not know reads as words.ts reads it. Pure.
 */
import {
  isTestStatusReasonCode,
  percentWord as percent,
  runsWord as runs,
  splitStatusReason,
  testStatusReasonClause,
  testStatusReasonText,
  testStatusWord,
} from './words';

/** Attempts and failures in one window (flaky/classification's RateReading). */
export interface RateNumbers {
  readonly attempts: number;
  readonly failures: number;
  readonly rate: number;
}

/** What the classifier reads of a test's history at `now` (flaky/classification's StatusEvidence). */
export interface StatusNumbers {
  /** Stable-set attempts and failures in the failure-rate window. */
  readonly rate: RateNumbers;
  /** The same in the broken-rate window. */
  readonly brokenRate: RateNumbers;
  /** Non-skipped results on any branch in the history read, infrastructure uploads left out. */
  readonly counted: number;
  /** When it last ran; null if never in the history read. */
  readonly lastRunAt: Date | null;
}

/** The repository's classification parameters the sentence names (ClassificationParams has them). */
export interface StatusThresholds {
  readonly stableBranches: readonly string[];
  readonly rateWindowHours: number;
  readonly rateMinAttempts: number;
  readonly rateOn: number;
  readonly rateOff: number;
  readonly mixedLookbackDays: number;
  readonly recoverPasses: number;
  readonly recoverDays: number;
  readonly staleDays: number;
  readonly brokenConsecutiveCommits: number;
  readonly brokenRateWindowHours: number;
  readonly brokenRateMinAttempts: number;
  readonly brokenRateOn: number;
  readonly brokenRateOff: number;
}

const hours = (h: number) => (h % 24 === 0 ? `${h / 24} day${h === 24 ? '' : 's'}` : `${h} h`);
const days = (d: number) => `${d} day${d === 1 ? '' : 's'}`;
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Where the rate rules count runs: the stable branches and the merge queue's branches. */
function stableSet(params: StatusThresholds): string {
  const branches = params.stableBranches.join(', ');
  return `on ${branches || 'the stable branches'} or the merge queue`;
}

/** The failure rate today against its thresholds, or how many runs it still needs to judge. */
function rateNow(evidence: StatusNumbers, params: StatusThresholds): string {
  const rate = evidence.rate;
  const window = hours(params.rateWindowHours);
  return rate.attempts < params.rateMinAttempts
    ? `${runs(rate.attempts)} ${stableSet(params)} in the last ${window} so far (${rate.failures} failed); ` +
        `the failure rate judges from ${params.rateMinAttempts}, flaky at ${percent(params.rateOn)} or more`
    : `${percent(rate.rate)} of its ${runs(rate.attempts)} ${stableSet(params)} in the last ${window} failed; ` +
        `flaky at ${percent(params.rateOn)} or more, healthy again below ${percent(params.rateOff)}`;
}

/** "Healthy: 2 runs … so far, 20 needed …": the sentence for a stored status and today's numbers. */
export function explainTestStatus(
  status: { readonly value: string; readonly reason: string },
  evidence: StatusNumbers,
  params: StatusThresholds,
): string {
  const { code, detail } = splitStatusReason(status.reason);
  const word = capital(testStatusWord(status.value));
  const rate = rateNow(evidence, params);
  if (!isTestStatusReasonCode(code))
    return `${word}: ${testStatusReasonText(status.reason)}. ${capital(rate)}.`;
  switch (code) {
    case 'no_results':
      return evidence.counted === 0
        ? `${word}: no result of it yet on a branch the classifier reads, so nothing to judge.`
        : `${word}: not classified since its first results. ${capital(rate)}.`;
    case 'no_signal':
      return `${word}: no commit both passed and failed it, and ${rate}.`;
    case 'recovered':
      return (
        `${word} again: after it was flaky or broken, ${params.recoverPasses} passes and ${days(params.recoverDays)} ` +
        `went by without a commit both passing and failing it. ${capital(rate)}.`
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
      return `${word}: ${rate}.`;
    case 'manual_flag':
      return `${word}: ${testStatusReasonClause(code)}.`;
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
