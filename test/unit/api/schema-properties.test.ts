/**
 * Properties of the merge-queue request schemas (api/schemas), over generated requests:
 *
 * 1. Every valid request parses, and parsing what came out parses to the same thing again (the
 *    lenient inputs, `"42"` or `PARALLEL`, settle into one canonical form).
 * 2. A valid request with one field spoiled (wrong type, out of range, or left out when required) is
 *    refused, and the answer is one sentence that names exactly that field.
 * A new request schema gets a row in REQUESTS with its valid-request arbitrary and its fields.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { QueueRequest } from '../../../api/schemas/common';
import {
  ListPullRequestsRequest,
  PrRequest,
  ReportTestStatusRequest,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
  TestingDetailsRequest,
} from '../../../api/schemas/merge-queue';
import { MAX_QUEUE_COUNT_SETTING, MAX_QUEUE_MINUTES_SETTING } from '../../../api/schemas/limits';
import { CreateQueueRequest, UpdateQueueRequest } from '../../../api/schemas/queue';
import { describeIssue, fieldPath } from '../../../api/validation-message';

const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,19}$/);
const repo = fc.record({
  host: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,15}[a-z0-9])?(\.[a-z]{2,8}){0,2}(:[0-9]{2,5})?$/),
  owner: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
  name: segment,
});
const branch = fc
  .array(fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,15}$/), { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'))
  .filter((b) => !b.startsWith('refs/'));
const prNumber = fc.oneof(
  fc.integer({ min: 1, max: 4_294_967_295 }),
  fc.integer({ min: 1, max: 4_294_967_295 }).map((n) => ` ${n} `),
);
const anyCase = (values: readonly string[]) =>
  fc.tuple(fc.constantFrom(...values), fc.boolean()).map(([v, upper]) => (upper ? v.toUpperCase() : v));
const queue = { repo, targetBranch: branch };
// Queue settings have upper bounds too (api/schemas/limits.ts).
const atLeast = (min: number) => fc.integer({ min, max: MAX_QUEUE_COUNT_SETTING });
const minutes = fc.integer({ min: 0, max: MAX_QUEUE_MINUTES_SETTING });

type Shape = Record<string, fc.Arbitrary<unknown>>;

/** One row per request schema: its valid requests, and which of its fields are required. */
const REQUESTS: [string, z.ZodType, Shape, string[]][] = [
  ['QueueRequest', QueueRequest, queue, ['repo', 'targetBranch']],
  ['PrRequest', PrRequest, { ...queue, pr: fc.record({ number: prNumber }) }, ['repo', 'targetBranch', 'pr']],
  [
    'SubmitPullRequestRequest',
    SubmitPullRequestRequest,
    {
      ...queue,
      pr: fc.record({ number: prNumber }),
      priority: fc.oneof(fc.integer({ min: 0, max: 255 }), anyCase(['urgent', 'high', 'medium', 'low'])),
      noBatch: fc.boolean(),
    },
    ['repo', 'targetBranch', 'pr'],
  ],
  [
    'SetImpactedTargetsRequest',
    SetImpactedTargetsRequest,
    {
      ...queue,
      pr: fc.record({ number: prNumber, sha: fc.stringMatching(/^[0-9a-f]{40}$/) }),
      impactedTargets: fc.oneof(fc.array(fc.string({ minLength: 1, maxLength: 20 })), anyCase(['all'])),
    },
    ['repo', 'targetBranch', 'pr', 'impactedTargets'],
  ],
  [
    'CreateQueueRequest',
    CreateQueueRequest,
    { ...queue, mode: anyCase(['single', 'parallel']), concurrency: atLeast(1) },
    ['repo', 'targetBranch'],
  ],
  [
    'UpdateQueueRequest',
    UpdateQueueRequest,
    {
      ...queue,
      state: anyCase(['running', 'paused', 'draining']),
      mode: anyCase(['single', 'parallel']),
      concurrency: atLeast(1),
      bisectionConcurrency: atLeast(1),
      testingTimeoutMinutes: minutes,
      pendingFailureDepth: atLeast(0),
      batch: fc.boolean(),
      batchingMaxWaitTimeMinutes: minutes,
      batchingMinSize: atLeast(1),
      canOptimisticallyMerge: fc.boolean(),
      directMergeMode: anyCase(['off', 'always']),
      optimizationMode: anyCase(['off', 'bisection_skip_redundant_tests']),
      mergeMethod: anyCase(['merge_commit', 'squash', 'rebase']),
    },
    ['repo', 'targetBranch'],
  ],
  [
    'ListPullRequestsRequest',
    ListPullRequestsRequest,
    { ...queue, state: anyCase(['merged', 'failed', 'testing']), take: fc.integer({ min: 1, max: 100 }) },
    ['repo', 'targetBranch'],
  ],
  [
    'TestingDetailsRequest',
    TestingDetailsRequest,
    { ...queue, testRunId: fc.uuid() },
    // Without testRunId it lists the runs in progress (the seed's "common fields" form).
    ['repo', 'targetBranch'],
  ],
  [
    'ReportTestStatusRequest',
    ReportTestStatusRequest,
    {
      ...queue,
      sha: fc.stringMatching(/^[0-9a-f]{40}$/),
      context: fc.stringMatching(/^[a-z][a-z0-9/ -]{0,30}[a-z0-9]$/),
      state: anyCase(['pending', 'success', 'failure', 'error']),
    },
    ['repo', 'targetBranch', 'sha', 'context', 'state'],
  ],
];

/** Optional fields are present or left out at random; required ones are always there. */
const valid = (shape: Shape, required: string[]) =>
  fc.record(shape, { requiredKeys: required as never[] }) as fc.Arbitrary<Record<string, unknown>>;

/** Every path to a leaf value of `value`, with the value there. */
function leaves(value: unknown, path: (string | number)[] = []): [(string | number)[], unknown][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[path, value]];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
}

/** A value no schema field accepts in place of `was`: another type, or a number out of any range. */
function spoiled(was: unknown): fc.Arbitrary<unknown> {
  if (typeof was === 'number') return fc.constantFrom(-1, 1e12, 'seven', true, null, [1]);
  if (typeof was === 'boolean') return fc.constantFrom('yes', 1, null, {});
  if (typeof was === 'string') return fc.constantFrom(42, false, null, { x: 1 });
  return fc.constantFrom(7, 'text', true);
}

function setAt(target: Record<string, unknown>, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(target);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

function firstMessage(schema: z.ZodType, input: unknown): string | null {
  const r = schema.safeParse(input);
  return r.success ? null : describeIssue(r.error.issues[0]!);
}

describe.each(REQUESTS)('%s', (_name, schema, shape, required) => {
  test('valid requests parse, and what comes out parses to itself', () => {
    fc.assert(
      fc.property(valid(shape, required), (input) => {
        const once = schema.parse(input);
        expect(schema.parse(once)).toEqual(once);
      }),
    );
  });

  test('one spoiled field is refused with a sentence naming that field', () => {
    const spoilt = valid(shape, required).chain((input) =>
      fc
        .constantFrom(...leaves(input))
        .chain(([path, was]) => spoiled(was).map((bad) => ({ path, mutated: setAt(input, path, bad) }))),
    );
    fc.assert(
      fc.property(spoilt, ({ path, mutated }) => {
        // Some fields take more than one type (priority: 0-255 or a name): skip a spoil they accept.
        fc.pre(!schema.safeParse(mutated).success);
        const field = fieldPath(path).replace(/[.[\]]/g, '\\$&');
        expect(firstMessage(schema, mutated)).toMatch(new RegExp(`^Field '${field}' .+\\.$`));
      }),
    );
  });

  test.each(required)('leaving out the required %s is refused, naming it', (field) => {
    fc.assert(
      fc.property(valid(shape, required), (input) => {
        expect(firstMessage(schema, setAt(input, [field], undefined))).toBe(`Field '${field}' is required.`);
      }),
      { numRuns: 20 },
    );
  });
});
