/**
 * The queue as getQueue and updateQueue answer it, and the createQueue / updateQueue requests (Trunk v1
 * field names, trunk-compat §1.8–1.11).
 *
 * Rules: enums are answered in lower case and accepted in any case; every updateQueue setting is
 * optional (omitted = unchanged); counts that size something (concurrency, batch size) are at least 1,
 * durations and depths at least 0 (0 turns the testing timeout off), and each has an upper bound
 * (limits.ts) so no queue asks the shared worker for more than it should. Trunk's live-only settings that
 * Terraform sends are accepted and ignored, so its requests do not fail. railyard's own settings
 * (landingMode, testBranchPrefix, testNetwork, batchingMode, batchingRunsPerPrTarget,
 * stalledCheckGraceMinutes, flakyRetries) are fields
 * Trunk's clients never send, so omitting them keeps what is set; createQueue also takes
 * testNetwork. Response schemas carry no transforms: the serializer encodes through them.
 */
import { z } from 'zod';
import { CONTROL_OR_LONE_SURROGATE } from '../../contract';
import {
  BATCHING_MODES,
  DEFAULT_FLAKY_RETRIES,
  DEFAULT_RUNS_PER_PR_TARGET,
  DEFAULT_STALL_GRACE_MINUTES,
  MAX_FLAKY_RETRIES,
  MAX_RUNS_PER_PR_TARGET,
  MAX_STALL_GRACE_MINUTES,
  MIN_RUNS_PER_PR_TARGET,
} from '../../engine';
import { looseEnum, QueueRequest } from './common';
import { EXAMPLE_QUEUE, withExample } from './examples';
import {
  MAX_QUEUE_COUNT_SETTING,
  MAX_QUEUE_MINUTES_SETTING,
  MAX_REQUIRED_STATUSES,
  MAX_STATUS_LENGTH,
} from './limits';

export const PR_STATES = [
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'pending_failure',
  'merged',
  'failed',
  'cancelled',
] as const;

export const QUEUE_MODES = ['single', 'parallel'] as const;
export const REQUESTED_QUEUE_STATES = ['running', 'paused', 'draining'] as const;
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
/** railyard's: how a queue on GitHub lands (docs/github.md, "Landing modes"). */
export const LANDING_MODES = ['push', 'api'] as const;
/** railyard's testNetwork, as the OpenAPI describes it (docs/api-compat.md, "testNetwork"). */
const TEST_NETWORK =
  'whether the test command may use the network (default true); false runs it in a network namespace of its own with only loopback, so it cannot install packages or reach any service.';
/** railyard's batchingMode and batchingRunsPerPrTarget (docs/api-compat.md, "Adaptive batching"). */
const BATCHING_MODE =
  "how batches are sized: `fixed` (Trunk's: batches of batchingMinSize, concurrency deep; the default) or `adaptive` (the queue picks the batch size, up to batchingMinSize, and the depth, up to concurrency, from its measured failure rate and backlog).";
/** railyard's stalledCheckGraceMinutes (docs/github.md, "Stalled checks"). */
const STALL_GRACE = `minutes after a test branch is pushed to GitHub within which each required check must have started (any check run or status of its name), else the PR, the queue page and a webhook report it stalled; the testing timeout still ends the run. 0 turns the report off (0 to ${MAX_STALL_GRACE_MINUTES}; default ${DEFAULT_STALL_GRACE_MINUTES}).`;
/** railyard's flakyRetries (docs/api-compat.md, "Test-level verdicts"). */
const FLAKY_RETRIES = `how many times a test run whose failed tests are all known flaky (flaky or quarantined in the flaky-test service) is run again, its failed tests only where the test command supports it, before its failure counts; 0 turns retries off (0 to ${MAX_FLAKY_RETRIES}; default ${DEFAULT_FLAKY_RETRIES}).`;
const RUNS_PER_PR_TARGET = `adaptive batching only: the most test runs per merged PR its plan may cost under load (${MIN_RUNS_PER_PR_TARGET} to ${MAX_RUNS_PER_PR_TARGET}; default ${DEFAULT_RUNS_PER_PR_TARGET}).`;
/** A test-branch prefix: branch-name characters, ending in "/", not under refs/ (names.ts checks it again). */
export const TEST_BRANCH_PREFIX_PATTERN =
  /^(?!refs\/)(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*\/$/;

export const EnqueuedPullRequest = z.object({
  id: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: z.string(),
  priorityValue: z.number(),
  priorityName: z.string(),
  usedDefaultPriorityName: z.string(),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
  prNumber: z.number(),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
});
export type EnqueuedPullRequest = z.infer<typeof EnqueuedPullRequest>;

export const QueueSettings = z.object({
  state: z.enum(['running', 'paused', 'draining', 'switching_modes']),
  branch: z.string(),
  concurrency: z.number(),
  testingTimeoutMinutes: z.number(),
  mode: z.enum(QUEUE_MODES),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.number(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.number(),
  batchingMinSize: z.number(),
  createPrsForTestingBranches: z.boolean(),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  extensionEnabled: z.boolean(),
  enqueueingLabel: z.string(),
  labelCommandsEnabled: z.boolean(),
  stateLabelsEnabled: z.boolean(),
  notReadyTimeoutHours: z.number(),
  testBranchConstructionMode: z.string(),
  bisectionConcurrency: z.number(),
  requiredStatuses: z
    .array(z.string())
    .describe(
      'Status contexts a test run needs when set through updateQueue; [] when none are set (the checks then come from .trunk/trunk.yaml or branch protection).',
    ),
  allowedBotSubmitters: z
    .array(z.string())
    .describe("Trunk's live field: bots allowed to submit PRs. Always [] (railyard has no such setting)."),
  batchingRules: z
    .array(z.record(z.string(), z.unknown()))
    .describe(
      "Trunk's live field: per-PR batching rules. Always [] (railyard batches by the queue's settings).",
    ),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
  mergeMethod: z.enum(MERGE_METHODS),
  landingMode: z.enum(LANDING_MODES).describe("railyard's: how the queue lands on GitHub."),
  testBranchPrefix: z
    .string()
    .nullable()
    .describe("railyard's: the queue's test-branch prefix; null = the host's (trunk-merge/ on GitHub)."),
  testNetwork: z.boolean().describe(`railyard's: ${TEST_NETWORK}`),
  batchingMode: z.enum(BATCHING_MODES).describe(`railyard's: ${BATCHING_MODE}`),
  batchingRunsPerPrTarget: z.number().describe(`railyard's: ${RUNS_PER_PR_TARGET}`),
  stalledCheckGraceMinutes: z.number().describe(`railyard's: ${STALL_GRACE}`),
  flakyRetries: z.number().describe(`railyard's: ${FLAKY_RETRIES}`),
  adaptivePlan: z
    .object({
      batchSize: z.number().describe('PRs per batch when the backlog has that many.'),
      depth: z.number().describe('New main-line runs in flight at most.'),
      failureRate: z
        .number()
        .describe('The estimated chance (0 to 1) that one PR breaks its run, the plan was made for.'),
    })
    .nullable()
    .describe(
      "railyard's: what an adaptive queue (batchingMode `adaptive`) plans now, from its measured failure rate; null for a fixed queue.",
    ),
});
export type QueueSettings = z.infer<typeof QueueSettings>;

export const QueueView = QueueSettings.extend({ enqueuedPullRequests: z.array(EnqueuedPullRequest) });
export type QueueView = z.infer<typeof QueueView>;

/** A whole number in [min, max]; every setting has an upper bound too (limits.ts). */
const between = (min: number, max: number) =>
  z
    .number()
    .int({ message: 'must be an integer' })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });
const count = (min: number) => between(min, MAX_QUEUE_COUNT_SETTING);
const minutes = () => between(0, MAX_QUEUE_MINUTES_SETTING);

export const CreateQueueRequest = withExample(
  QueueRequest.extend({
    mode: looseEnum(QUEUE_MODES).optional().describe('Defaults to single.'),
    concurrency: count(1).optional().describe('Test runs in flight at once; defaults to 1.'),
    // Also at create time, so a queue meant to run offline never runs a command with the network.
    testNetwork: z.boolean().optional().describe(`railyard's: ${TEST_NETWORK}`),
  }),
  // The demo's queue, as `npm run demo` creates it.
  { ...EXAMPLE_QUEUE, mode: 'single', concurrency: 2 },
);
export type CreateQueueRequest = z.infer<typeof CreateQueueRequest>;

/** null reads as "not given", as Terraform sends unset optional attributes. */
const unsetIfNull = <T extends z.ZodType>(t: T) =>
  t
    .nullish()
    .transform((v) => v ?? undefined)
    .optional();

/**
 * Settings Trunk's live API and Terraform know but railyard does not act on: stored with the queue and
 * returned, so declarative clients see no drift.
 */
const IgnoredSettings = {
  extensionEnabled: unsetIfNull(z.boolean()),
  enqueueingLabel: unsetIfNull(z.string().max(255)),
  labelCommandsEnabled: unsetIfNull(z.boolean()),
  stateLabelsEnabled: unsetIfNull(z.boolean()),
  notReadyTimeoutHours: unsetIfNull(z.number().min(0).max(1_000_000)),
  testBranchConstructionMode: unsetIfNull(z.string().max(100)),
};

export const UpdateQueueRequest = withExample(
  QueueRequest.extend({
    state: looseEnum(REQUESTED_QUEUE_STATES).optional(),
    mode: looseEnum(QUEUE_MODES).optional(),
    concurrency: count(1).optional(),
    bisectionConcurrency: count(1).optional(),
    testingTimeoutMinutes: minutes().optional().describe('0 turns the testing timeout off.'),
    pendingFailureDepth: count(0).optional(),
    batch: z.boolean().optional(),
    batchingMaxWaitTimeMinutes: minutes().optional(),
    batchingMinSize: count(1).optional(),
    canOptimisticallyMerge: z.boolean().optional(),
    directMergeMode: looseEnum(DIRECT_MERGE_MODES).optional(),
    optimizationMode: looseEnum(OPTIMIZATION_MODES).optional(),
    mergeMethod: looseEnum(MERGE_METHODS).optional(),
    createPrsForTestingBranches: z.boolean().optional(),
    commentsEnabled: z.boolean().optional(),
    commandsEnabled: z.boolean().optional(),
    statusCheckEnabled: z.boolean().optional(),
    requiredStatuses: z
      .array(
        z
          .string()
          .trim()
          .min(1)
          .max(MAX_STATUS_LENGTH)
          // Carried in the queue's state: 6 bytes of JSON each, and no CI names a status with one.
          .refine((name) => !CONTROL_OR_LONE_SURROGATE.test(name), {
            message: 'must not contain control characters or unpaired surrogates',
          }),
      )
      .max(MAX_REQUIRED_STATUSES)
      .optional()
      .describe('Status contexts a test run needs; an empty list is ignored (use deleteRequiredStatuses).'),
    deleteRequiredStatuses: z
      .boolean()
      .optional()
      .describe('Drop the required statuses set through the API.'),
    landingMode: looseEnum(LANDING_MODES)
      .optional()
      .describe(
        "railyard's: `push` moves the target to the tested commit (the App needs to bypass protection); `api` merges each PR through GitHub's merge endpoint.",
      ),
    testBranchPrefix: z
      .string()
      .max(100, { message: 'must be at most 100 characters long' })
      .regex(TEST_BRANCH_PREFIX_PATTERN, {
        message:
          'must be a branch prefix ending in "/", such as trunk-merge/ (letters, digits, ".", "_", "-")',
      })
      .optional()
      .describe("railyard's: prefix of the queue's test branches, e.g. trunk-merge/."),
    testNetwork: z.boolean().optional().describe(`railyard's: ${TEST_NETWORK}`),
    batchingMode: looseEnum(BATCHING_MODES).optional().describe(`railyard's: ${BATCHING_MODE}`),
    batchingRunsPerPrTarget: z
      .number()
      .min(MIN_RUNS_PER_PR_TARGET, { message: `must be at least ${MIN_RUNS_PER_PR_TARGET}` })
      .max(MAX_RUNS_PER_PR_TARGET, { message: `must be at most ${MAX_RUNS_PER_PR_TARGET}` })
      .optional()
      .describe(`railyard's: ${RUNS_PER_PR_TARGET}`),
    stalledCheckGraceMinutes: between(0, MAX_STALL_GRACE_MINUTES)
      .optional()
      .describe(`railyard's: ${STALL_GRACE}`),
    flakyRetries: between(0, MAX_FLAKY_RETRIES).optional().describe(`railyard's: ${FLAKY_RETRIES}`),
    ...IgnoredSettings,
  }).superRefine((body, ctx) => {
    if (body.deleteRequiredStatuses === true && (body.requiredStatuses?.length ?? 0) > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['deleteRequiredStatuses'],
        message: 'cannot be true when requiredStatuses is given',
      });
    }
  }),
  // The batching `npm run demo` turns on, and a testing timeout.
  {
    ...EXAMPLE_QUEUE,
    batch: true,
    batchingMinSize: 3,
    batchingMaxWaitTimeMinutes: 1,
    testingTimeoutMinutes: 30,
  },
);
export type UpdateQueueRequest = z.infer<typeof UpdateQueueRequest>;
