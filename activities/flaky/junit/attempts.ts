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
import { optional, parseSeconds } from './values';
import { type RawCase, type RawOutcome } from './raw';
import { type AttemptStatus, type FailureDetail, type ParsedAttempt } from './types';

const INVOCATION_PROPERTIES = ['invocations', 'dd_tags[test.invocations]'];

/** Attempts of one testcase element, before repeats of the same test are merged. */
export function attemptsOf(raw: RawCase, limits: JunitLimits): ParsedAttempt[] {
  const flaky = raw.outcomes.filter((o) => o.element === 'flakyFailure' || o.element === 'flakyError');
  const reruns = raw.outcomes.filter((o) => o.element === 'rerunFailure' || o.element === 'rerunError');
  const primary = raw.outcomes.find((o) => o.element === 'failure' || o.element === 'error');
  const skipped = raw.outcomes.find((o) => o.element === 'skipped');
  const caseDuration = secondsToMs(parseSeconds(raw.attributes.time));
  const caseOutput = { ...optional('systemOut', raw.systemOut), ...optional('systemErr', raw.systemErr) };

  const attempts: Omit<ParsedAttempt, 'index'>[] = flaky.map(fromRetryChild);
  if (primary !== undefined) {
    attempts.push({
      ...fromOutcome(primary, 'testcase'),
      ...optional('durationMs', caseDuration),
      ...caseOutput,
    });
  }
  attempts.push(...reruns.map(fromRetryChild));
  if (primary === undefined && reruns.length === 0) {
    const final =
      skipped === undefined
        ? { status: 'passed' as const, origin: 'testcase' as const }
        : fromOutcome(skipped, 'testcase');
    attempts.push({ ...final, ...optional('durationMs', caseDuration), ...caseOutput });
  }

  const invocations = invocationCount(raw);
  const unseen =
    invocations === undefined || flaky.length + reruns.length > 0 ? 0 : invocations - attempts.length;
  const earlier = Array.from({ length: Math.min(Math.max(unseen, 0), limits.maxAttemptsPerTest) }, () => ({
    status: 'failed' as const,
    origin: 'invocations' as const,
  }));
  return [...earlier, ...attempts].map((attempt, index) => ({ index, ...attempt }));
}

export function invocationCount(raw: RawCase): number | undefined {
  for (const name of INVOCATION_PROPERTIES) {
    const value = raw.properties[name];
    if (value !== undefined && /^\d+$/.test(value.trim())) return Number(value.trim());
  }
  return undefined;
}

function fromRetryChild(outcome: RawOutcome): Omit<ParsedAttempt, 'index'> {
  const origin =
    outcome.element === 'skipped' || outcome.element === 'failure' || outcome.element === 'error'
      ? 'testcase'
      : outcome.element;
  return {
    ...fromOutcome(outcome, origin),
    ...optional('durationMs', secondsToMs(outcome.timeSeconds)),
    ...optional('systemOut', outcome.systemOut),
    ...optional('systemErr', outcome.systemErr),
  };
}

function fromOutcome(outcome: RawOutcome, origin: ParsedAttempt['origin']): Omit<ParsedAttempt, 'index'> {
  const status = statusOf(outcome);
  const detail: FailureDetail = {
    ...optional('message', outcome.message),
    ...optional('type', outcome.type),
    ...optional('body', outcome.body),
  };
  const hasDetail = Object.keys(detail).length > 0;
  if (status === 'skipped') return { status, origin, ...(hasDetail ? { skip: detail } : {}) };
  return { status, origin, ...(hasDetail ? { failure: detail } : {}) };
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
