/**
 * Values a tenant sets that later run in shared code (the queue workflow's state, the hourly flaky
 * sweep, every list page), each one step past its bound (issue 11): a 400 naming the field, never a
 * value stored for the shared worker to choke on. The bounds are api/schemas/limits.ts,
 * CLASSIFICATION_BOUNDS (flaky/classification/params.ts) and the ticket template's
 * placeholder count; a row at a bound shows the bound itself is allowed.
 */
import { CLASSIFICATION_BOUNDS, type NumberBound, type NumberKey } from '../../../../flaky/classification';
import { MAX_TICKET_PLACEHOLDERS } from '../../../../api/routes/flaky-tests/admin-schemas';
import {
  MAX_IMPACTED_TARGETS,
  MAX_IMPACTED_TARGETS_BYTES,
  MAX_QUEUE_COUNT_SETTING,
  MAX_QUEUE_MINUTES_SETTING,
  MAX_REQUIRED_STATUSES,
  MAX_SHA_LENGTH,
  MAX_STATUS_LENGTH,
  MAX_TARGET_LENGTH,
} from '../../../../api/schemas/limits';
import { MAX_RUNS_PER_PR_TARGET, MIN_RUNS_PER_PR_TARGET } from '../../../../engine';
import { QUEUE, withQueue, type BadInputRow } from './rows';

const TARGETS = '/v1/setImpactedTargets';
const targets = (list: unknown, sha = 'abc') => withQueue({ pr: { number: 1, sha }, impactedTargets: list });
const names = (n: number, length = 8) => Array.from({ length: n }, (_, i) => `t${i}`.padEnd(length, 'x'));

// prettier-ignore
export const mergeQueueBounds: BadInputRow[] = [
  { name: `impactedTargets with ${MAX_IMPACTED_TARGETS + 1} targets`, route: TARGETS, body: targets(names(MAX_IMPACTED_TARGETS + 1)), status: 400, message: `Field 'impactedTargets' must have at most ${MAX_IMPACTED_TARGETS} targets; send "ALL" to impact every target.` },
  { name: 'impactedTargets with 100,000 targets', route: TARGETS, body: targets(names(100_000)), status: 400, message: `Field 'impactedTargets' must have at most ${MAX_IMPACTED_TARGETS} targets; send "ALL" to impact every target.` },
  { name: `an impacted target of ${MAX_TARGET_LENGTH + 1} characters`, route: TARGETS, body: targets(['a', 'b', 'c'.repeat(MAX_TARGET_LENGTH + 1)]), status: 400, message: `Field 'impactedTargets[2]' must be at most ${MAX_TARGET_LENGTH} characters long.` },
  { name: `impactedTargets at the bound: ${MAX_IMPACTED_TARGETS} targets of ${MAX_TARGET_LENGTH} characters`, route: TARGETS, body: targets(names(MAX_IMPACTED_TARGETS, MAX_TARGET_LENGTH)), status: 200, message: null },
  // Issue 24: counted in UTF-16 units, 1,000 targets of 256 control characters were 1.5 MB of JSON each.
  { name: 'an impacted target with a control character', route: TARGETS, body: targets(['a', `b${'\u0001'.repeat(255)}`]), status: 400, message: "Field 'impactedTargets[1]' must not contain control characters or unpaired surrogates." },
  { name: 'an impacted target with an unpaired surrogate', route: TARGETS, body: '{"repo":{"host":"github.com","owner":"acme","name":"app"},"targetBranch":"main","pr":{"number":1,"sha":"abc"},"impactedTargets":["a","\\ud800"]}', status: 400, message: "Field 'impactedTargets[1]' must not contain control characters or unpaired surrogates." },
  { name: `impactedTargets over ${MAX_IMPACTED_TARGETS_BYTES} bytes of JSON in characters of 3 bytes`, route: TARGETS, body: targets(names(MAX_IMPACTED_TARGETS, 100).map((t) => `${t}${'\u4e2d'.repeat(150)}`)), status: 400, message: `Field 'impactedTargets' must be at most ${MAX_IMPACTED_TARGETS_BYTES} bytes as JSON (UTF-8); send "ALL" to impact every target.` },
  { name: 'a required status with a control character', route: '/v1/updateQueue', body: withQueue({ requiredStatuses: ['ci', 'build\u0007'] }), status: 400, message: "Field 'requiredStatuses[1]' must not contain control characters or unpaired surrogates." },
  { name: `pr.sha of ${MAX_SHA_LENGTH + 1} characters`, route: TARGETS, body: targets('ALL', 'a'.repeat(MAX_SHA_LENGTH + 1)), status: 400, message: `Field 'pr.sha' must be at most ${MAX_SHA_LENGTH} characters long.` },
  { name: `requiredStatuses with ${MAX_REQUIRED_STATUSES + 1} names`, route: '/v1/updateQueue', body: withQueue({ requiredStatuses: names(MAX_REQUIRED_STATUSES + 1) }), status: 400, message: `Field 'requiredStatuses' must have at most ${MAX_REQUIRED_STATUSES} items.` },
  { name: `a required status of ${MAX_STATUS_LENGTH + 1} characters`, route: '/v1/updateQueue', body: withQueue({ requiredStatuses: ['ci', 's'.repeat(MAX_STATUS_LENGTH + 1)] }), status: 400, message: `Field 'requiredStatuses[1]' must be at most ${MAX_STATUS_LENGTH} characters long.` },
  { name: `createQueue with concurrency ${MAX_QUEUE_COUNT_SETTING + 1}`, route: '/v1/createQueue', body: { ...QUEUE, repo: { ...QUEUE.repo, name: 'bounds' }, concurrency: MAX_QUEUE_COUNT_SETTING + 1 }, status: 400, message: `Field 'concurrency' must be at most ${MAX_QUEUE_COUNT_SETTING}.` },
  ...(['concurrency', 'bisectionConcurrency', 'batchingMinSize', 'pendingFailureDepth'] as const).map((field): BadInputRow => (
    { name: `updateQueue with ${field} ${MAX_QUEUE_COUNT_SETTING + 1}`, route: '/v1/updateQueue', body: withQueue({ [field]: MAX_QUEUE_COUNT_SETTING + 1 }), status: 400, message: `Field '${field}' must be at most ${MAX_QUEUE_COUNT_SETTING}.` })),
  { name: 'updateQueue with concurrency 1e9', route: '/v1/updateQueue', body: withQueue({ concurrency: 1e9 }), status: 400, message: `Field 'concurrency' must be at most ${MAX_QUEUE_COUNT_SETTING}.` },
  ...(['testingTimeoutMinutes', 'batchingMaxWaitTimeMinutes'] as const).map((field): BadInputRow => (
    { name: `updateQueue with ${field} past a week`, route: '/v1/updateQueue', body: withQueue({ [field]: MAX_QUEUE_MINUTES_SETTING + 1 }), status: 400, message: `Field '${field}' must be at most ${MAX_QUEUE_MINUTES_SETTING}.` })),
  // Issue 25: adaptive batching's settings (railyard's extension).
  { name: 'updateQueue with an unknown batchingMode', route: '/v1/updateQueue', body: withQueue({ batchingMode: 'dynamic' }), status: 400, message: "Field 'batchingMode' must be one of: fixed, adaptive." },
  { name: `updateQueue with batchingRunsPerPrTarget past ${MAX_RUNS_PER_PR_TARGET}`, route: '/v1/updateQueue', body: withQueue({ batchingRunsPerPrTarget: MAX_RUNS_PER_PR_TARGET + 1 }), status: 400, message: `Field 'batchingRunsPerPrTarget' must be at most ${MAX_RUNS_PER_PR_TARGET}.` },
  { name: 'updateQueue with batchingRunsPerPrTarget 0', route: '/v1/updateQueue', body: withQueue({ batchingRunsPerPrTarget: 0 }), status: 400, message: `Field 'batchingRunsPerPrTarget' must be at least ${MIN_RUNS_PER_PR_TARGET}.` },
];

const SETTINGS = '/v1/flaky-tests/update-repository-settings';
const FLAKY = { repo: QUEUE.repo, org_url_slug: 'acme' };

/** One step past the upper bound; the message as resolveClassificationParams words it. */
function pastBound(key: NumberKey, bound: Exclude<NumberBound, { kind: 'ratio' }>): BadInputRow {
  const expected =
    bound.kind === 'count'
      ? `a whole number from 1 to ${bound.max}`
      : `a number greater than 0 and at most ${bound.max}`;
  return {
    name: `classification.${key} of ${bound.max + 1}`,
    route: SETTINGS,
    body: { ...FLAKY, classification: { [key]: bound.max + 1 } },
    status: 400,
    message: `The classification parameter ${key} must be ${expected}.`,
  };
}

const ticketTemplate = (n: number) => `https://jira.example/browse/${'{ticket}/'.repeat(n)}`;

// prettier-ignore
export const flakyBounds: BadInputRow[] = [
  ...(Object.entries(CLASSIFICATION_BOUNDS) as [NumberKey, NumberBound][]).flatMap(([key, bound]) =>
    bound.kind === 'ratio' ? [] : [pastBound(key, bound)]),
  { name: 'classification.staleDays of 1e12', route: SETTINGS, body: { ...FLAKY, classification: { staleDays: 1e12 } }, status: 400, message: 'The classification parameter staleDays must be a number greater than 0 and at most 180.' },
  { name: 'classification at the bounds of the sweep’s history', route: SETTINGS, body: { ...FLAKY, classification: { staleDays: 180, mixedLookbackDays: 30, recoverDays: 90 } }, status: 200, message: null, check: (answer) => {
    expect(JSON.parse(answer.body)).toMatchObject({ effective_classification: { staleDays: 180, mixedLookbackDays: 30, recoverDays: 90 } });
  } },
  { name: `ticket_url_template with {ticket} ${MAX_TICKET_PLACEHOLDERS + 1} times`, route: SETTINGS, body: { ...FLAKY, ticket_url_template: ticketTemplate(MAX_TICKET_PLACEHOLDERS + 1) }, status: 400, message: `Field 'ticket_url_template' may contain {ticket} at most ${MAX_TICKET_PLACEHOLDERS} times.` },
  { name: 'ticket_url_template with {ticket} 200 times', route: SETTINGS, body: { ...FLAKY, ticket_url_template: ticketTemplate(200) }, status: 400, message: `Field 'ticket_url_template' may contain {ticket} at most ${MAX_TICKET_PLACEHOLDERS} times.` },
];

export const LIMIT_SECTIONS: [string, BadInputRow[]][] = [
  ['limits: merge-queue values past their bounds', mergeQueueBounds],
  ['limits: flaky-test settings past their bounds', flakyBounds],
];
