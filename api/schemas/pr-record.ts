/**
 * What a PR record says about itself beyond Trunk's documented fields (docs/api-compat.md, "Records
 * that explain themselves"): the reason of its current state as a name and a sentence, the structured
 * detail behind it, the test runs it was tested in (with links to their logs), the run that decided
 * it, and, on request, Trunk's `includeTimeline` and `includeEstimatedTimeToMerge` answers.
 *
 * Rules: additions only, so Trunk clients that ignore unknown fields read records unchanged; the
 * timeline is newest first with Trunk's keys (trunk-compat §1.4) and lower-case reasons.
 */
import { z } from 'zod';
import { PR_STATES } from './queue';

export const ReasonDetail = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('command_failed'),
      exitCode: z.number().nullable().describe('null: a signal ended the command.'),
      failedTests: z.array(z.string()).describe('Failing tests the command reported (at most 10).'),
      moreFailedTests: z.number(),
    }),
    z.object({
      kind: z.literal('statuses'),
      failed: z.array(z.string()).describe('Required statuses that failed.'),
      missing: z.array(z.string()).describe('Required statuses that had not passed.'),
      noUploadAfterSeconds: z
        .number()
        .optional()
        .describe(
          "CI uploaded no test results for the test commit within this many seconds, so the run's statuses decided without its failed tests.",
        ),
      uploadsUnreadable: z
        .literal(true)
        .optional()
        .describe(
          "The test results CI uploaded for the test commit could not be read (the flaky-test store failed past its retries), so the run's statuses decided without its failed tests.",
        ),
    }),
    z.object({
      kind: z.literal('conflict'),
      pr: z.number().describe('The PR that did not apply.'),
      files: z.array(z.string()),
      onTopOf: z
        .array(z.number())
        .describe('PRs applied before it on the target branch; [] = the target alone.'),
      clashesWith: z
        .array(z.number())
        .optional()
        .describe(
          'Those of onTopOf whose own changes touch the files: the PRs it clashed with; [] = none of them (the target branch); absent = not known.',
        ),
    }),
    z.object({
      kind: z.literal('actor'),
      actor: z.string().describe('Who asked: an API key and its organisation.'),
    }),
    z.object({ kind: z.literal('problem'), text: z.string() }),
    z.object({
      kind: z.literal('landing'),
      sha: z.string().describe('The commit the target branch was moved to.'),
      testedTree: z
        .string()
        .nullable()
        .describe(
          'The git tree id the passing test run tested; null: landed without a test run (direct merge).',
        ),
      landedTree: z
        .string()
        .nullable()
        .describe('The git tree id the target branch held when read back right after the landing.'),
      rebased: z
        .boolean()
        .optional()
        .describe(
          "Parallel mode: applied onto a tip another lane moved, so the trees differ by that lane's PRs.",
        ),
    }),
    z.object({
      kind: z.literal('test_evidence'),
      tests: z.array(z.string()).describe('The failed tests that convicted it (at most 10).'),
      moreTests: z.number(),
      runs: z
        .array(
          z.object({
            testRunId: z.string(),
            prs: z.number().describe('How many PRs the run decided.'),
            role: z
              .enum(['batch', 'bisection', 'flaky_retry'])
              .describe('A main-line run, a bisection chunk, or a retry of known-flaky tests.'),
            failed: z.boolean().describe('false: it passed without this PR, clearing the PRs it tested.'),
          }),
        )
        .describe('The runs the verdict rests on, in the order they decided (at most 10).'),
      moreRuns: z.number(),
      passedOnTarget: z
        .string()
        .optional()
        .describe('The target-branch commit those tests last passed on, when known.'),
    }),
  ])
  .describe('What made the reason concrete; absent when the reason says it all.');

export const TestRunLink = z.object({
  testRunId: z.string(),
  logUrl: z
    .string()
    .optional()
    .describe(
      "The run's log (GET, same API key); absent for runs CI judged by its statuses and for runs that never started (the test branch could not be built).",
    ),
});

/** The explanation fields every PR record carries (listPullRequests and getSubmittedPullRequest). */
export const RecordExplanation = {
  reason: z.string().describe('Why it is in its state: Trunk reason name where Trunk has one (upper case).'),
  reasonText: z.string().describe('The same reason as one sentence a person reads.'),
  reasonDetail: ReasonDetail.optional(),
  testRuns: z.array(TestRunLink).describe('Every test run it was tested in, oldest first.'),
  decidedByTestRun: z
    .string()
    .nullable()
    .describe('The run behind its latest transition (the failing or verifying run), if any.'),
  testedTree: z
    .string()
    .nullable()
    .optional()
    .describe(
      "railyard's extension, on a PR the queue merged: the git tree id its passing test run tested (null: merged without a test run). Absent otherwise.",
    ),
  landedTree: z
    .string()
    .nullable()
    .optional()
    .describe(
      "railyard's extension, on a PR the queue merged: the git tree id the target branch held right after the landing; differs from testedTree only if the branch was changed outside the queue (or rebased in parallel mode, reasonDetail.rebased). Absent otherwise.",
    ),
  stalledChecks: z
    .object({
      checks: z.array(z.string()),
      cause: z.enum(['nothing_reported', 'not_produced']),
      since: z.string(),
      testBranch: z.string(),
      graceMinutes: z.number(),
      text: z.string(),
    })
    .optional()
    .describe(
      "railyard's extension, while it is tested on GitHub: the required checks of its test run that have not started (no check run or status at all) within the queue's stalledCheckGraceMinutes after the test branch was pushed, the likely cause (`nothing_reported`: no CI workflow runs on the test-branch prefix; `not_produced`: CI ran other checks, not this one, on the branch) and a sentence saying so. A report only: testingTimeoutMinutes still ends the run. Absent otherwise.",
    ),
  convictedBy: z
    .array(z.string())
    .optional()
    .describe(
      "railyard's extension: for a PR failed as a bisection's culprit, the runs that convicted it, in the order they decided (the failed batch, then the chunk runs that failed with it or passed without it). Absent otherwise.",
    ),
};

export const TimelineItem = z.object({
  timestamp: z.string(),
  state: z.enum(PR_STATES),
  previousState: z.enum(PR_STATES).nullable(),
  reason: z.string().describe('Lower case, as in Trunk timelines (e.g. prerequisite_merge_item_failed).'),
  reasonText: z.string(),
  testRun: TestRunLink.optional(),
  notReady: z
    .object({
      reason: z.string(),
      blockReasons: z.array(
        z.object({
          kind: z.enum([
            'behind_base',
            'merge_conflict',
            'failing_required_check',
            'awaiting_required_check',
            'undetermined',
          ]),
        }),
      ),
    })
    .optional(),
  failure: z
    .object({
      reason: z.string(),
      failureCausingStatuses: z.array(z.string()).optional(),
      failedTests: z.array(z.string()).optional(),
      conflictCulprit: z
        .object({
          type: z.enum(['queue_pr', 'base_branch', 'stacked_pr']),
          prNumbers: z.array(z.number()),
          files: z.array(z.string()),
        })
        .optional(),
    })
    .optional(),
  cancellation: z.object({ reason: z.string(), actor: z.string().optional() }).optional(),
  merged: z.object({ reason: z.string(), actor: z.enum(['merge_queue', 'outside']) }).optional(),
  testsPassed: z.object({ testRunId: z.string().nullable() }).optional(),
});
export type TimelineItem = z.infer<typeof TimelineItem>;

export const EstimatedTimeToMerge = z
  .object({
    estimatedMergeAt: z
      .string()
      .nullable()
      .describe('ISO-8601 time the PR is expected to merge; null: no estimate yet (`text` says why).'),
    remainingSeconds: z.number().nullable().describe('Seconds until then; null: no estimate yet.'),
    position: z.number().describe('1-based place in the queue when estimated.'),
    testDurationSeconds: z
      .number()
      .nullable()
      .describe("The median of this queue's recent test runs; null before one was measured."),
    landingSeconds: z
      .number()
      .nullable()
      .describe("The median time from tests passed to merged of this queue's recent PRs; null before one."),
    measuredRuns: z.number().describe('How many recent test runs the median is of.'),
    text: z.string().describe('The estimate, or why there is none yet, as a sentence.'),
  })
  .nullable()
  .describe('null once the PR left the queue or while it is not ready (docs/api-compat.md).');
