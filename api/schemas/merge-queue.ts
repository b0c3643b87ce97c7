/**
 * Requests and responses of the pull-request, testing and status endpoints (Trunk v1 field names,
 * trunk-compat §1.1–1.7). Queue administration lives in queue.ts.
 *
 * Rules: input is lenient the way Trunk's real clients need it (`pr.number` as a numeric string, enums
 * and priority names in any case, `"ALL"` or `"IMPACTS_ALL"`, unknown fields ignored); output is strict
 * and lower case, except where Trunk answers GitHub's upper-case words (`statusChecks[].state`).
 * Response schemas carry no transforms: the serializer encodes through them.
 */
import { z } from 'zod';
import { CONTROL_OR_LONE_SURROGATE, jsonBytes, MAX_COMMIT_BODY, MAX_COMMIT_TITLE } from '../../contract';
import { MAX_PRIORITY, parsePriority, PRIORITY_VALUES } from '../../engine';
import { looseEnum, PrNumber, QueueRequest } from './common';
import {
  MAX_IMPACTED_TARGETS,
  MAX_IMPACTED_TARGETS_BYTES,
  MAX_RUNS_IN_PROGRESS_LISTED,
  MAX_SHA_LENGTH,
  MAX_TARGET_LENGTH,
} from './limits';
import { EnqueuedPullRequest, PR_STATES } from './queue';
import { EstimatedTimeToMerge, RecordExplanation, TimelineItem } from './pr-record';
import { EXAMPLE_FAILED_PR, EXAMPLE_PR, EXAMPLE_QUEUE, EXAMPLE_SHA, withExample } from './examples';

const PRIORITY_MESSAGE = `must be an integer from 0 to ${MAX_PRIORITY} or one of: ${Object.keys(PRIORITY_VALUES).join(', ')}`;

/** 0–255 (0 first) or a level name in any case; null or absent = the queue default (medium). */
export const Priority = z
  .union([z.number(), z.string()], { error: PRIORITY_MESSAGE })
  .nullish()
  .transform((input, ctx) => {
    if (input === null || input === undefined) return null;
    const value = parsePriority(input);
    if (value === null) {
      ctx.addIssue({ code: 'custom', message: PRIORITY_MESSAGE });
      return z.NEVER;
    }
    return value;
  })
  .describe('0–255 (0 is urgent and skips the line) or urgent, high, medium, low.');

export const PrRequest = withExample(QueueRequest.extend({ pr: z.object({ number: PrNumber }) }), {
  ...EXAMPLE_QUEUE,
  pr: { number: EXAMPLE_PR },
});
export type PrRequest = z.infer<typeof PrRequest>;

export const GetSubmittedPullRequestRequest = withExample(
  PrRequest.extend({
    includeTimeline: z.boolean().optional().describe("Add the PR's transitions, newest first."),
    includeEstimatedTimeToMerge: z
      .boolean()
      .optional()
      .describe('Add an estimate of when it merges (position, mode, measured test durations).'),
  }),
  // The demo's PR that breaks the tests: its record says which test failed and links the run's log.
  { ...EXAMPLE_QUEUE, pr: { number: EXAMPLE_FAILED_PR }, includeTimeline: true },
);
export type GetSubmittedPullRequestRequest = z.infer<typeof GetSubmittedPullRequestRequest>;

export const SubmitPullRequestRequest = withExample(
  PrRequest.extend({
    priority: Priority,
    noBatch: z.boolean().optional().describe('Test this PR alone even when batching is on.'),
    commitTitle: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_COMMIT_TITLE, `must be at most ${MAX_COMMIT_TITLE} characters`)
      .regex(/^[^\r\n]*$/, 'must be one line')
      .optional()
      .describe(
        "railyard's extension: the title of the commit this PR lands as (squash and merge commit; a rebase keeps each commit's own). Over the PR description's `merge-commit-title:` line; default the queue's template.",
      ),
    commitBody: z
      .string()
      .max(MAX_COMMIT_BODY, `must be at most ${MAX_COMMIT_BODY} characters`)
      .optional()
      .describe(
        "railyard's extension: the body of the commit this PR lands as (squash and merge commit); default the template's.",
      ),
  }),
  { ...EXAMPLE_QUEUE, pr: { number: EXAMPLE_PR }, priority: 'high' },
);
export type SubmitPullRequestRequest = z.infer<typeof SubmitPullRequestRequest>;

const ALL_TARGETS = ['all', 'impacts_all'] as const;
const TARGETS_MESSAGE = 'must be a list of target names or "ALL"';

/**
 * A list of target names, or `"ALL"` (also spelled `"IMPACTS_ALL"`, any case): impacts everything.
 * The list is bounded (limits.ts): the queue keeps it in its state; "ALL" is the way past the bound,
 * as Trunk's own clients use it past the request size.
 */
export const ImpactedTargets = z
  .union([z.array(z.string()), z.string().transform((v) => v.trim().toLowerCase())], {
    error: (issue) => (issue.input === undefined ? 'is required' : TARGETS_MESSAGE),
  })
  .superRefine((v, ctx) => {
    if (typeof v === 'string') {
      if (!(ALL_TARGETS as readonly string[]).includes(v))
        ctx.addIssue({ code: 'custom', message: TARGETS_MESSAGE });
      return;
    }
    if (v.length > MAX_IMPACTED_TARGETS) {
      ctx.addIssue({
        code: 'custom',
        message: `must have at most ${MAX_IMPACTED_TARGETS} targets; send "ALL" to impact every target`,
      });
      return;
    }
    const long = v.findIndex((target) => target.length > MAX_TARGET_LENGTH);
    if (long >= 0) {
      ctx.addIssue({
        code: 'custom',
        path: [long],
        message: `must be at most ${MAX_TARGET_LENGTH} characters long`,
      });
      return;
    }
    // A control character is 1 unit but 6 bytes of JSON; no build tool names a target with one.
    const control = v.findIndex((target) => CONTROL_OR_LONE_SURROGATE.test(target));
    if (control >= 0) {
      ctx.addIssue({
        code: 'custom',
        path: [control],
        message: 'must not contain control characters or unpaired surrogates',
      });
      return;
    }
    // Counted as the queue stores it: UTF-8 bytes of JSON (workflows/queue/targets-budget.ts).
    if (v.reduce((n, target) => n + jsonBytes(target) + 1, 1) > MAX_IMPACTED_TARGETS_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${MAX_IMPACTED_TARGETS_BYTES} bytes as JSON (UTF-8); send "ALL" to impact every target`,
      });
    }
  })
  .transform((v): string[] | 'ALL' => (typeof v === 'string' ? 'ALL' : v))
  .meta({
    description: `Up to ${MAX_IMPACTED_TARGETS} target names of at most ${MAX_TARGET_LENGTH} characters without control characters, at most ${MAX_IMPACTED_TARGETS_BYTES} bytes as JSON in all, or "ALL".`,
  });

export const SetImpactedTargetsRequest = withExample(
  QueueRequest.extend({
    pr: z.object({ number: PrNumber, sha: z.string().trim().min(1).max(MAX_SHA_LENGTH) }),
    impactedTargets: ImpactedTargets,
  }),
  { ...EXAMPLE_QUEUE, pr: { number: EXAMPLE_PR, sha: EXAMPLE_SHA }, impactedTargets: ['calc'] },
);
export type SetImpactedTargetsRequest = z.infer<typeof SetImpactedTargetsRequest>;

export const Readiness = z.object({
  hasImpactedTargets: z.boolean(),
  requiresImpactedTargets: z.boolean(),
  doesBaseBranchMatch: z.boolean(),
  gitHubMergeability: z.enum(['unspecified', 'in_progress', 'mergeable', 'not_mergeable']),
});

/** One submission of a PR as listPullRequests answers it. */
export const PullRequestEntry = EnqueuedPullRequest.extend({
  verifiedByTestRun: z.string().nullable().describe('The test run that verified a merged PR.'),
  ...RecordExplanation,
});
export type PullRequestEntry = z.infer<typeof PullRequestEntry>;

export const SubmittedPullRequest = PullRequestEntry.extend({
  readiness: Readiness,
  forceEnqueued: z.boolean(),
  isCurrentlySubmittedToQueue: z.boolean(),
  timeline: z.array(TimelineItem).optional().describe('With includeTimeline: its transitions, newest first.'),
  estimatedTimeToMerge: EstimatedTimeToMerge.optional(),
});
export type SubmittedPullRequest = z.infer<typeof SubmittedPullRequest>;

const DateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });

export const ListPullRequestsRequest = withExample(
  QueueRequest.extend({
    state: looseEnum(PR_STATES).optional(),
    since: DateTime.optional().describe('Only PRs that concluded at or after this time.'),
    until: DateTime.optional().describe('Only PRs that concluded before this time.'),
    cursor: z.string().trim().min(1).max(4096).optional().describe('nextCursor of the previous page.'),
    take: z
      .number()
      .int({ message: 'must be an integer' })
      .min(1, { message: 'must be at least 1' })
      .max(100, { message: 'must be at most 100' })
      .default(50),
  }),
  // The demo's failed PRs, each with the sentence that says why.
  { ...EXAMPLE_QUEUE, state: 'failed', take: 20 },
);
export type ListPullRequestsRequest = z.infer<typeof ListPullRequestsRequest>;

export const PullRequestPage = z.object({
  pullRequests: z.array(PullRequestEntry),
  nextCursor: z.string().optional().describe('Absent on the last page.'),
});
export type PullRequestPage = z.infer<typeof PullRequestPage>;

export const TestingDetailsRequest = withExample(
  QueueRequest.extend({
    testRunId: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .describe('The run to describe; absent: every run in progress, as { testRuns: [...] }.'),
  }),
  EXAMPLE_QUEUE,
);
export type TestingDetailsRequest = z.infer<typeof TestingDetailsRequest>;

export const TestingDetails = z.object({
  requiredStatuses: z.array(z.string()),
  requiredStatusesSource: z
    .enum(['trunk_config', 'repo_provider_branch_protection', 'merge_instance'])
    .optional(),
  testBranch: z.string(),
  testBranchSha: z.string(),
  createdAt: z.string(),
  status: z.enum(['in_progress', 'failed', 'cancelled', 'succeeded']),
  checkSuites: z.array(
    z.object({
      checkRuns: z.array(
        z.object({
          name: z.string(),
          url: z.string(),
          status: z.string(),
          conclusion: z.string().optional(),
        }),
      ),
    }),
  ),
  statusChecks: z.array(
    z.object({
      context: z.string(),
      url: z.string().optional(),
      state: z.enum(['ERROR', 'FAILURE', 'PENDING', 'SUCCESS']),
    }),
  ),
  testedPullRequests: z.array(
    z.object({
      prNumber: z.number(),
      prUrl: z.string().optional().describe('The PR on its web host; absent on the local git host.'),
      title: z.string(),
    }),
  ),
  impactedTargets: z.array(z.string()).optional(),
  impactedTargetsForTestedPrs: z.array(z.string()).optional(),
  dependentPrs: z.array(z.number()).optional(),
  stalledChecks: z
    .object({
      checks: z.array(z.string()),
      cause: z.enum(['nothing_reported', 'not_produced']),
      since: z.string(),
      graceMinutes: z.number(),
      text: z.string(),
    })
    .optional()
    .describe(
      "railyard's extension: the required checks that have not started (no check run or status at all) within the queue's stalledCheckGraceMinutes after the test branch was pushed, the likely cause and a sentence saying so. Absent when none.",
    ),
});
export type TestingDetails = z.infer<typeof TestingDetails>;

/** The answer without `testRunId` (the seed's "common fields" form): every run in progress. */
export const TestRunsInProgress = z.object({
  testRuns: z
    .array(TestingDetails.extend({ testRunId: z.string() }))
    .describe(`The runs in progress, in queue order (at most ${MAX_RUNS_IN_PROGRESS_LISTED}).`),
});
export type TestRunsInProgress = z.infer<typeof TestRunsInProgress>;

export const COMMIT_STATUS_STATES = ['pending', 'success', 'failure', 'error'] as const;

export const ReportTestStatusRequest = withExample(
  QueueRequest.extend({
    sha: z.string().trim().min(1).max(255).describe('The test branch commit the status is for.'),
    context: z.string().trim().min(1).max(255).describe('The status name, as in requiredStatuses.'),
    state: looseEnum(COMMIT_STATUS_STATES),
    url: z.string().max(2048).nullish(),
    description: z.string().max(1024).nullish(),
  }),
  {
    ...EXAMPLE_QUEUE,
    sha: EXAMPLE_SHA,
    context: 'ci/test',
    state: 'success',
    url: 'https://ci.example.com/builds/1234',
    description: 'All 212 tests passed',
  },
);
export type ReportTestStatusRequest = z.infer<typeof ReportTestStatusRequest>;
