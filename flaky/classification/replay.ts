/**
 * The replay behind classify(): walks the candidate instants in time order, updating the rules
 * that remember (rate hysteresis, S1 cutoff, the consecutive-commit run) and the current status
 * with the time it began. See classify.ts for the rules' precedence.
 */
import { ConsecutiveFailingCommits } from './consecutive';
import { type PreparedHistory } from './history';
import { hasEvidenceIn, type MixedContext, type MixedReading, readMixed } from './mixed';
import { type ClassificationParams, DAY_MS, HOUR_MS } from './params';
import { rateStep } from './rates';
import {
  brokenRateReason,
  consecutiveReason,
  mixedReason,
  plainReason,
  type Reason,
  stableRateReason,
} from './reason';
import { presenceAt } from './stale';
import { type Classification, type TestStatus } from './types';
import { FailureSeries, type RateReading } from './window';

export interface Instant {
  /** The evaluation instant (windows are [instant − W, instant)). */
  readonly at: number;
  /** The time that explains a change at this instant: a result's time or a boundary. */
  readonly cause: number;
}

export interface ReplayInput {
  readonly prepared: PreparedHistory;
  readonly mixed: MixedContext;
  readonly flaggedAt: number | undefined;
  readonly params: ClassificationParams;
  readonly instants: readonly Instant[];
  readonly now: number;
}

interface Verdict {
  readonly status: TestStatus;
  readonly reason: Reason;
}

interface Current extends Verdict {
  /** When the current status began; unset while the test has never run. */
  readonly since: number | undefined;
  /** What a healthy spell is called once it is neither stale nor new. */
  readonly healthyAs: 'no_signal' | 'recovered';
}

interface Signals {
  readonly consecutive: boolean;
  readonly broken: boolean;
  readonly brokenReading: RateReading;
  readonly mixed: MixedReading;
  readonly rate: boolean;
  readonly rateReading: RateReading;
  readonly flagged: boolean;
}

export function replay(input: ReplayInput): Classification {
  const { prepared, mixed, flaggedAt, params, instants, now } = input;
  const rateWindow = params.rateWindowHours * HOUR_MS;
  const brokenWindow = params.brokenRateWindowHours * HOUR_MS;
  const series = new FailureSeries(prepared.stable);
  const consecutive = new ConsecutiveFailingCommits(params.brokenConsecutiveCommits);
  const rateThreshold = { minAttempts: params.rateMinAttempts, on: params.rateOn, off: params.rateOff };
  const brokenThreshold = {
    minAttempts: params.brokenRateMinAttempts,
    on: params.brokenRateOn,
    off: params.brokenRateOff,
  };

  let fed = 0;
  let cutoff = -Infinity;
  let rateOn = false;
  let brokenOn = false;
  let current: Current = {
    status: 'healthy',
    reason: plainReason('no_results'),
    since: undefined,
    healthyAs: 'no_signal',
  };

  for (const instant of instants) {
    const at = instant.at;
    for (; fed < prepared.stable.length && prepared.stable[fed]!.atMs < at; fed += 1)
      consecutive.add(prepared.stable[fed]!);
    const flagged = flaggedAt !== undefined && flaggedAt < at;
    const presence = presenceAt(prepared.ran, params.staleDays * DAY_MS, at);

    if (presence !== 'running' && !flagged) {
      if (presence === 'stale') {
        cutoff = at;
        rateOn = false;
        brokenOn = false;
        consecutive.reset();
      }
      const reason = plainReason(presence === 'stale' ? 'stale' : 'no_results');
      current = advance(current, { status: 'healthy', reason }, instant.cause);
      continue;
    }

    const rateReading = series.read(Math.max(at - rateWindow, cutoff), at);
    const brokenReading = series.read(Math.max(at - brokenWindow, cutoff), at);
    rateOn = rateStep(rateOn, rateReading, rateThreshold);
    brokenOn = rateStep(
      brokenOn,
      brokenReading,
      brokenThreshold,
      !hasEvidenceIn(mixed, cutoff, at - brokenWindow, at),
    );
    const signals: Signals = {
      consecutive: consecutive.active,
      broken: brokenOn,
      brokenReading,
      mixed: readMixed(mixed, cutoff, at),
      rate: rateOn,
      rateReading,
      flagged,
    };
    current = advance(current, decide(signals, params), instant.cause);
  }

  return {
    status: current.status,
    reason: current.reason.text,
    reasonCode: current.reason.code,
    timestamp: new Date(current.since ?? now),
  };
}

function decide(signals: Signals, params: ClassificationParams): Verdict {
  if (signals.consecutive)
    return { status: 'broken', reason: consecutiveReason(params.brokenConsecutiveCommits) };
  if (signals.broken) return { status: 'broken', reason: brokenRateReason(signals.brokenReading) };
  if (signals.mixed.active && signals.mixed.last)
    return { status: 'flaky', reason: mixedReason(signals.mixed.last.commitSha) };
  if (signals.rate) {
    const { rateMinAttempts, rateOn, rateOff, rateWindowHours } = params;
    return {
      status: 'flaky',
      reason: stableRateReason(signals.rateReading, rateMinAttempts, rateOn, rateOff, rateWindowHours),
    };
  }
  if (signals.flagged) return { status: 'flaky', reason: plainReason('manual_flag') };
  return { status: 'healthy', reason: plainReason('no_signal') };
}

/** Moves to the next verdict, keeping the start time unless the status itself changed. */
function advance(current: Current, next: Verdict, cause: number): Current {
  const changed = next.status !== current.status;
  const healthyAs = changed && current.status !== 'healthy' ? 'recovered' : current.healthyAs;
  const reason = next.reason.code === 'no_signal' ? plainReason(healthyAs) : next.reason;
  const ran = next.reason.code !== 'no_results';
  const since = changed ? cause : (current.since ?? (ran ? cause : undefined));
  return { status: next.status, reason, since, healthyAs };
}
