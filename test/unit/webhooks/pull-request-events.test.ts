/**
 * Transitions → Trunk's merge-queue webhook events: which event each transition sends, the payload
 * fields per action, batch events for runs with more than one PR, and keys that make a repeat the
 * same event.
 */
import { pullRequestEventsOf } from '../../../webhooks/pull-request-events';
import type { TransitionEvent } from '../../../events/types';
import { MINUTE, submission } from '../events/fixtures';

const T = Date.parse('2026-03-01T12:00:00Z');
const ctx = { detailsUrl: () => 'http://railyard.test/pr' };
const org = 'org-1';

test('a PR through the queue: submitted, queued, testing, merged; no tests_passed event', () => {
  const events = submission({ organisationId: org, prNumber: 7 }, [
    { to: 'not_ready', at: T, reason: 'USER_REQUESTED' },
    { to: 'pending', at: T + MINUTE },
    { to: 'testing', at: T + 2 * MINUTE, testRunId: 'run-1' },
    { to: 'tests_passed', at: T + 3 * MINUTE, testRunId: 'run-1' },
    { to: 'merged', at: T + 4 * MINUTE, testRunId: 'run-1' },
  ]);
  const out = pullRequestEventsOf(events, ctx);
  expect(out.map((e) => e.type)).toEqual([
    'pull_request.submitted',
    'pull_request.queued',
    'pull_request.testing',
    'pull_request.merged',
  ]);
  expect(out[0]!.payload).toEqual({
    type: 'pull_request.submitted',
    action: 'submitted',
    status: 'submitted',
    author: 'octocat',
    http_details_url: 'http://railyard.test/pr',
    pr_number: 7,
    repository: { host: 'github.com', owner: 'acme', name: 'app' },
    target_branch: 'main',
    timestamp: '2026-03-01T12:00:00.000Z',
    submitted_reason: 'USER_REQUESTED',
    pr_sha: 'b'.repeat(40),
    test_run_id: null,
    reason_text: 'Not ready yet: it was submitted and is being checked for readiness.',
  });
  expect(out[1]!.payload).toMatchObject({ queued_reason: 'MERGE_ITEM_NOW_READY' });
  expect(out[2]!.payload).toMatchObject({
    test_branch: 'railyard-merge/pr-7/run-1',
    test_branch_sha: 'a'.repeat(40),
    batched: false,
    is_bisection: false,
  });
  expect(out[3]!.payload).toMatchObject({ merged_reason: 'MERGE_GRAPH_MERGE', action: 'merged' });
  expect(new Set(out.map((e) => e.key)).size).toBe(4);
});

test.each([
  ['pending_failure', 'pull_request.pending_failure', { failure_reason: 'TEST_RUN_TIMEOUT' }],
  ['failed', 'pull_request.failed', { failure_reason: 'TEST_RUN_TIMEOUT' }],
  ['cancelled', 'pull_request.canceled', { cancellation_reason: 'TEST_RUN_TIMEOUT', action: 'canceled' }],
] as const)('%s sends %s with its reason field', (to, type, fields) => {
  const [, e] = submission({ organisationId: org, prNumber: 3 }, [
    { to: 'not_ready', at: T },
    { to, at: T, reason: 'TEST_RUN_TIMEOUT' },
  ]);
  const [event] = pullRequestEventsOf([e!], ctx);
  expect(event!.type).toBe(type);
  expect(event!.payload).toMatchObject({ ...fields, is_bisection: false });
  // Cancelled before any run: no test branch fields.
  expect(event!.payload).not.toHaveProperty('test_branch');
});

test('returning to not_ready sends nothing; a submission reason Trunk lacks reads API_REQUESTED', () => {
  const events = submission({ organisationId: org, prNumber: 3 }, [
    { to: 'not_ready', at: T, reason: 'SOMETHING_ELSE' },
    { to: 'pending', at: T },
    { to: 'not_ready', at: T, reason: 'PR_HEAD_CHANGED' },
  ]);
  const out = pullRequestEventsOf(events, ctx);
  expect(out.map((e) => e.type)).toEqual(['pull_request.submitted', 'pull_request.queued']);
  expect(out[0]!.payload.submitted_reason).toBe('API_REQUESTED');
});

describe('a batch of PRs 4, 5, 6 in run b1', () => {
  const moved = (to: 'testing' | 'merged' | 'failed', prs: number[]) =>
    prs.map(
      (n) =>
        submission({ organisationId: org, prNumber: n, submissionId: `s${n}` }, [
          { to: 'pending', at: T },
          { to, at: T + n, testRunId: 'b1', batch: [4, 5, 6], testBranch: 'railyard-merge/pr-4/b1' },
        ])[1]!,
    );

  test('testing: one PR event each (batched) and one batch event for the run', () => {
    const out = pullRequestEventsOf(moved('testing', [4, 5, 6]), ctx);
    expect(out.map((e) => e.type)).toEqual([
      'pull_request.testing',
      'pull_request.testing',
      'pull_request.testing',
      'pull_request_batch.testing',
    ]);
    expect(out[0]!.payload.batched).toBe(true);
    expect(out[3]!.key).toBe('batch/b1/testing');
    expect(out[3]!.payload).toEqual({
      type: 'pull_request_batch.testing',
      action: 'testing',
      status: 'testing',
      pr_numbers: [4, 5, 6],
      pr_numbers_in_batch: [4, 5, 6],
      repository: { host: 'github.com', owner: 'acme', name: 'app' },
      target_branch: 'main',
      timestamp: new Date(T + 6).toISOString(),
      test_branch: 'railyard-merge/pr-4/b1',
      test_branch_sha: 'a'.repeat(40),
      batched: true,
      is_bisection: false,
    });
  });

  test('merged with one PR failing: pr_numbers are the merged ones, the batch all three', () => {
    const out = pullRequestEventsOf([...moved('merged', [4, 6]), ...moved('failed', [5])], ctx);
    const merged = out.find((e) => e.type === 'pull_request_batch.merged')!;
    expect(merged.payload).toMatchObject({
      pr_numbers: [4, 6],
      pr_numbers_in_batch: [4, 5, 6],
      merged_reason: 'MERGE_GRAPH_MERGE',
    });
    const failed = out.find((e) => e.type === 'pull_request_batch.failed')!;
    expect(failed.payload).toMatchObject({
      pr_numbers: [5],
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
  });

  test('the same batch action in a later append maps to the same key (delivered once)', () => {
    const first = pullRequestEventsOf(moved('merged', [4]), ctx).find((e) =>
      e.type.startsWith('pull_request_batch'),
    );
    const later = pullRequestEventsOf(moved('merged', [5, 6]), ctx).find((e) =>
      e.type.startsWith('pull_request_batch'),
    );
    expect(first!.key).toBe(later!.key);
  });
});

test('a single-PR run sends no batch event', () => {
  const events = submission({ organisationId: org, prNumber: 9 }, [
    { to: 'pending', at: T },
    { to: 'testing', at: T, testRunId: 'r9' },
  ]);
  expect(pullRequestEventsOf(events, ctx).map((e) => e.type)).toEqual([
    'pull_request.submitted',
    'pull_request.queued',
    'pull_request.testing',
  ]);
});

test('a failed command run: the reason as a sentence, its detail and the link to its log', () => {
  const [, failedStep] = submission({ organisationId: org, prNumber: 4 }, [
    { to: 'pending_failure', at: T, reason: 'TEST_RUN_COMMAND_FAILED', testRunId: 'run-9' },
    { to: 'failed', at: T + MINUTE, reason: 'TEST_RUN_COMMAND_FAILED', testRunId: 'run-9' },
  ]);
  const failed: TransitionEvent = {
    ...failedStep!,
    detail: { kind: 'command_failed', exitCode: 2, failedTests: ['calc.adds'], moreFailedTests: 0 },
    runner: 'command',
  };
  const [out] = pullRequestEventsOf([failed], {
    ...ctx,
    testRunLogUrl: (id) => `http://railyard.test/v1/testRuns/${id}/log`,
  });
  expect(out!.payload).toMatchObject({
    failure_reason: 'TEST_RUN_COMMAND_FAILED',
    test_run_id: 'run-9',
    test_run_log_url: 'http://railyard.test/v1/testRuns/run-9/log',
    reason_detail: failed.detail,
    reason_text:
      "Failed: the queue's test command failed on the test branch (exit code 2); failing test: calc.adds.",
  });
});

test("merged carries the landing's proof: the landed commit, the tested tree and the tree main held", () => {
  const detail = {
    kind: 'landing' as const,
    sha: 'c'.repeat(40),
    testedTree: 'a'.repeat(40),
    landedTree: 'a'.repeat(40),
  };
  const events = submission({ organisationId: org, prNumber: 7 }, [
    { to: 'pending', at: T },
    { to: 'merged', at: T + MINUTE, testRunId: 'run-1' },
  ]).map((e): TransitionEvent => (e.to === 'merged' ? { ...e, detail } : e));
  const merged = pullRequestEventsOf(events, ctx).find((e) => e.type === 'pull_request.merged')!;
  expect(merged.payload).toMatchObject({
    merged_reason: 'MERGE_GRAPH_MERGE',
    landed_sha: detail.sha,
    tested_tree: detail.testedTree,
    landed_tree: detail.landedTree,
    reason_detail: detail,
    reason_text:
      'Merged: the queue merged it after its tests passed; main holds the tree its test run tested (aaaaaaaaaaaa).',
  });
});
