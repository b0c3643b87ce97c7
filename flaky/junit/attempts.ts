/**
 * One testcase element → its ordered attempts. The encodings, in the order attempts ran:
 *
 * 1. `<flakyFailure>`/`<flakyError>` children: earlier failed attempts of a test that then passed
 *    (Surefire `rerunFailingTestsCount`, Playwright `includeRetries`). Some writers also put them
 *    before a final `<failure>`, so they always come first.
 * 2. `<failure>`/`<error>`: the first failing run when reruns follow (Surefire writes the first
 *    run's failure there and the reruns as `rerunFailure`), otherwise the only one.
 * 3. `<rerunFailure>`/`<rerunError>` children: the later runs of a test that never passed. Their
 *    position in the document does not matter (Playwright writes them before `<failure>`).
 * 4. Otherwise the final run: `<skipped>` or, with no outcome child, a pass.
 *
 * An invocation count property (jest-junit's `testResult.invocations`, written as Datadog's
 * `dd_tags[test.invocations]` or plainly as `invocations`) adds the runs the file does not show:
 * Jest retries only failures, so every invocation before the recorded one failed.
 *
 * The testcase's own `time` and captured output belong to the attempt the writer took them from:
 * the first failing run when there is one, else the final run. Retry children carry their own.
 */
import { type JunitLimits } from './limits';
import { type Mutable, parseSeconds } from './values';
import { type RawCase, type RawOutcome } from './raw';
import { type AttemptStatus, type FailureDetail, type ParsedAttempt } from './types';

const INVOCATION_PROPERTIES = ['invocations', 'dd_tags[test.invocations]'];

/** Attempts of one testcase element, before repeats of the same test are merged. */
export function attemptsOf(raw: RawCase, limits: JunitLimits): ParsedAttempt[] {
  // One pass over the outcome children instead of a filter per kind: this runs for every testcase.
  let flaky: RawOutcome[] | undefined;
  let reruns: RawOutcome[] | undefined;
  let primary: RawOutcome | undefined;
  let skipped: RawOutcome | undefined;
  for (const outcome of raw.outcomes) {
    switch (outcome.element) {
      case 'flakyFailure':
      case 'flakyError':
        (flaky ??= []).push(outcome);
        break;
      case 'rerunFailure':
      case 'rerunError':
        (reruns ??= []).push(outcome);
        break;
      case 'failure':
      case 'error':
        primary ??= outcome;
        break;
      case 'skipped':
        skipped ??= outcome;
        break;
    }
  }
  const caseDuration = secondsToMs(parseSeconds(raw.attributes.time));
  const retries = (flaky?.length ?? 0) + (reruns?.length ?? 0);

  const attempts: ParsedAttempt[] = [];
  const invocations = invocationCount(raw);
  if (invocations !== undefined && retries === 0) {
    // Jest retries only failures: every invocation before the recorded one failed.
    // Without retry children the file shows exactly one run (the failure, the skip or the pass).
    const unseen = Math.min(Math.max(invocations - 1, 0), limits.maxAttemptsPerTest);
    for (let i = 0; i < unseen; i += 1) attempts.push({ index: i, status: 'failed', origin: 'invocations' });
  }
  if (flaky !== undefined)
    for (const outcome of flaky) attempts.push(fromRetryChild(outcome, attempts.length));
  if (primary !== undefined) {
    attempts.push(withCaseDetails(fromOutcome(primary, 'testcase', attempts.length), caseDuration, raw));
  }
  if (reruns !== undefined)
    for (const outcome of reruns) attempts.push(fromRetryChild(outcome, attempts.length));
  if (primary === undefined && reruns === undefined) {
    const final: ParsedAttempt =
      skipped === undefined
        ? { index: attempts.length, status: 'passed', origin: 'testcase' }
        : fromOutcome(skipped, 'testcase', attempts.length);
    attempts.push(withCaseDetails(final, caseDuration, raw));
  }
  return attempts;
}

export function invocationCount(raw: RawCase): number | undefined {
  for (const name of INVOCATION_PROPERTIES) {
    const value = raw.properties[name];
    if (value !== undefined && /^\d+$/.test(value.trim())) return Number(value.trim());
  }
  return undefined;
}

/** The testcase's own `time` and output go to the attempt the writer took them from. */
function withCaseDetails(
  attempt: ParsedAttempt,
  durationMs: number | undefined,
  raw: RawCase,
): ParsedAttempt {
  const out: Mutable<ParsedAttempt> = attempt;
  if (durationMs !== undefined) out.durationMs = durationMs;
  if (raw.systemOut !== undefined) out.systemOut = raw.systemOut;
  if (raw.systemErr !== undefined) out.systemErr = raw.systemErr;
  return out;
}

function fromRetryChild(outcome: RawOutcome, index: number): ParsedAttempt {
  const origin =
    outcome.element === 'skipped' || outcome.element === 'failure' || outcome.element === 'error'
      ? 'testcase'
      : outcome.element;
  const attempt: Mutable<ParsedAttempt> = fromOutcome(outcome, origin, index);
  const durationMs = secondsToMs(outcome.timeSeconds);
  if (durationMs !== undefined) attempt.durationMs = durationMs;
  if (outcome.systemOut !== undefined) attempt.systemOut = outcome.systemOut;
  if (outcome.systemErr !== undefined) attempt.systemErr = outcome.systemErr;
  return attempt;
}

function fromOutcome(outcome: RawOutcome, origin: ParsedAttempt['origin'], index: number): ParsedAttempt {
  const status = statusOf(outcome);
  const attempt: Mutable<ParsedAttempt> = { index, status, origin };
  if (outcome.message === undefined && outcome.type === undefined && outcome.body === undefined)
    return attempt;
  const detail: Mutable<FailureDetail> = {};
  if (outcome.message !== undefined) detail.message = outcome.message;
  if (outcome.type !== undefined) detail.type = outcome.type;
  if (outcome.body !== undefined) detail.body = outcome.body;
  if (status === 'skipped') attempt.skip = detail;
  else attempt.failure = detail;
  return attempt;
}

function statusOf(outcome: RawOutcome): AttemptStatus {
  switch (outcome.element) {
    case 'failure':
    case 'flakyFailure':
    case 'rerunFailure':
      return 'failed';
    case 'error':
    case 'flakyError':
    case 'rerunError':
      return 'error';
    case 'skipped':
      return 'skipped';
  }
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}
