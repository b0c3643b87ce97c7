/**
 * Reason sentences (contract/pr-reasons.ts): one module for records, webhooks and PR
 * comments. Each detail makes its sentence concrete; a command failure is its own reason, a statuses
 * failure keeps Trunk's.
 */
import { explainState, reasonClause, type ExplainInput } from '../../../contract';
import { verdictOf } from '../../../engine/verdict';

test('a failed command is TEST_RUN_COMMAND_FAILED; failed statuses keep Trunk’s reason', () => {
  expect(verdictOf('failed', [], 'command')).toEqual({ passed: false, reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(verdictOf('failed', [], 'statuses')).toEqual({
    passed: false,
    reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
  });
  expect(verdictOf('failed')).toEqual({ passed: false, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
});

test.each<[ExplainInput, string]>([
  [
    { state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' },
    "Failed: the queue's test command failed on the test branch.",
  ],
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_COMMAND_FAILED',
      detail: { kind: 'command_failed', exitCode: null, failedTests: ['a', 'b'], moreFailedTests: 3 },
    },
    "Failed: the queue's test command failed on the test branch (stopped by a signal); failing tests: a, b and 3 more.",
  ],
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_TIMEOUT',
      detail: { kind: 'statuses', failed: [], missing: ['ci/build'] },
    },
    'Failed: required status ci/build had not passed at the testing timeout.',
  ],
  [
    {
      state: 'pending_failure',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail: { kind: 'statuses', failed: ['ci/test', 'ci/lint'], missing: [] },
    },
    'Its test run failed, the queue waits for the PRs ahead of it before blaming one: required statuses ci/test, ci/lint failed on the test branch.',
  ],
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail: { kind: 'statuses', failed: ['ci/test'], missing: [], noUploadAfterSeconds: 60 },
    },
    'Failed: required status ci/test failed on the test branch; CI uploaded no test results for the test commit within 60 seconds, so no failed test was known and the run as a whole decided.',
  ],
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail: { kind: 'statuses', failed: ['ci/test'], missing: [], uploadsUnreadable: true },
    },
    "Failed: required status ci/test failed on the test branch; railyard could not read the test results CI uploaded for the test commit (its flaky-test store failed; the worker's log says why), so no failed test was known and the run as a whole decided.",
  ],
  [
    {
      state: 'failed',
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: { kind: 'conflict', pr: 5, files: ['README.md'], onTopOf: [] },
      targetBranch: 'main',
    },
    'Failed: #5 conflicts with the target branch main in file README.md.',
  ],
  [
    {
      state: 'failed',
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: { kind: 'conflict', pr: 5, files: ['README.md'], onTopOf: [1, 2, 3, 4], clashesWith: [4] },
      targetBranch: 'main',
    },
    'Failed: #5 conflicts with #4 (tested ahead of it on main) in file README.md.',
  ],
  [
    // None of the PRs ahead touches the file: the other side is the target branch's own history.
    {
      state: 'failed',
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: { kind: 'conflict', pr: 5, files: ['README.md'], onTopOf: [1, 2], clashesWith: [] },
      targetBranch: 'main',
    },
    'Failed: #5 conflicts with the target branch main in file README.md.',
  ],
  [
    // Not told (an older record, or a PR ahead the host could not read): every PR it was applied on.
    {
      state: 'failed',
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: { kind: 'conflict', pr: 5, files: ['a.txt', 'b.txt'], onTopOf: [1, 2] },
      targetBranch: 'main',
    },
    'Failed: #5 conflicts with #1, #2 (tested ahead of it on main) in files a.txt, b.txt.',
  ],
  [
    {
      state: 'cancelled',
      reason: 'USER_REQUESTED',
      detail: { kind: 'actor', actor: 'API key "CI" of organisation acme' },
    },
    'Cancelled: API key "CI" of organisation acme asked for it.',
  ],
  [
    {
      state: 'merged',
      reason: 'MERGE_GRAPH_MERGE',
      detail: {
        kind: 'landing',
        sha: 'c'.repeat(40),
        testedTree: 'a'.repeat(40),
        landedTree: 'a'.repeat(40),
      },
      targetBranch: 'main',
    },
    'Merged: the queue merged it after its tests passed; main holds the tree its test run tested (aaaaaaaaaaaa).',
  ],
  [
    {
      state: 'merged',
      reason: 'MERGE_GRAPH_MERGE',
      detail: {
        kind: 'landing',
        sha: 'c'.repeat(40),
        testedTree: 'a'.repeat(40),
        landedTree: 'b'.repeat(40),
      },
      targetBranch: 'main',
    },
    'Merged: the queue merged it after its tests passed; but main held tree bbbbbbbbbbbb right after the landing, not the tested tree aaaaaaaaaaaa: it was changed outside the queue.',
  ],
  // Issue 28: an ejection names the tests, the runs and the evidence.
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_COMMAND_FAILED',
      detail: {
        kind: 'test_evidence',
        tests: ['calc › divides'],
        moreTests: 0,
        runs: [
          { testRunId: 'aaaaaaaa-1111', prs: 8, role: 'batch', failed: true },
          { testRunId: 'bbbbbbbb-2222', prs: 4, role: 'bisection', failed: false },
          { testRunId: 'cccccccc-3333', prs: 1, role: 'bisection', failed: true },
        ],
        moreRuns: 0,
        passedOnTarget: 'd'.repeat(40),
      },
      targetBranch: 'main',
    },
    "Failed: the queue's test command failed on the test branch: `calc › divides` failed in runs aaaaaaaa (batch of 8) and cccccccc (alone); without this PR it did not fail in run bbbbbbbb (chunk of 4); it passed on main at dddddddddddd.",
  ],
  [
    {
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail: {
        kind: 'test_evidence',
        tests: ['net › retries', 'io › reads'],
        moreTests: 2,
        runs: [
          { testRunId: 'aaaaaaaa-1111', prs: 1, role: 'batch', failed: true },
          { testRunId: 'bbbbbbbb-2222', prs: 1, role: 'flaky_retry', failed: true },
        ],
        moreRuns: 1,
      },
    },
    'Failed: a required status failed on the test branch: `net › retries`, `io › reads` and 2 more failed in runs aaaaaaaa (alone) and bbbbbbbb (its known-flaky tests run again) and 1 more.',
  ],
  [
    { state: 'failed', reason: 'LANDED_TREE_DIFFERS' },
    'Failed: the queue refused to land it: the commit it would put on the target branch does not hold the tree its test run tested.',
  ],
  [
    { state: 'not_ready', reason: 'AWAITING_MERGEABILITY', blockedBy: 'it needs 1 approving review' },
    'Not ready yet: it needs 1 approving review.',
  ],
])('%j', (input, sentence) => {
  expect(explainState(input)).toBe(sentence);
});

test('an unknown reason name is shown as itself', () => {
  expect(reasonClause('SOMETHING_NEW')).toBe('reason SOMETHING_NEW');
});
