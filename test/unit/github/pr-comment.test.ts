/** The text a person reads on a GitHub PR for each state of its record. */
import {
  announcement,
  liveComment,
  LIVE_MARKER,
  presentedState,
} from '../../../github/presentation/pr-comment';
import type { PullRequestRecord } from '../../../contract';
import type { PrState } from '../../../engine';

const record = (state: PrState, reason: string): PullRequestRecord => ({
  id: 'sub-1',
  prNumber: 7,
  state,
  stateChangedAt: 0,
  reason,
  details: {
    title: 't',
    headSha: 'a'.repeat(40),
    baseBranch: 'main',
    author: 'ada',
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    readiness: {
      hasImpactedTargets: false,
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
    },
  },
  skipTheLine: false,
  isCurrentlySubmittedToQueue: true,
  verifiedByTestRun: null,
  timeline: [{ at: 0, from: 'pending', to: state, reason, testRunId: 'run-1' }],
});
const shown = { comment: true, checkRun: true, position: 2, queueLength: 5 };

test.each([
  ['not_ready', 'AWAITING_MERGEABILITY', /not ready yet/, 'in_progress', undefined],
  ['pending', 'USER_REQUESTED', /Queued: position 2 of 5/, 'in_progress', undefined],
  ['testing', 'TESTS_STARTED', /Testing/, 'in_progress', undefined],
  ['tests_passed', 'TESTS_PASSED', /Tests passed/, 'in_progress', undefined],
  ['pending_failure', 'TEST_RUN_REQUIRED_STATUS_FAILED', /test run failed/, 'in_progress', undefined],
  ['merged', 'MERGE_GRAPH_MERGE', /Merged into `main`/, 'completed', 'success'],
  ['failed', 'TEST_RUN_TIMEOUT', /Failed/, 'completed', 'failure'],
  ['cancelled', 'PR_CLOSED', /Cancelled/, 'completed', 'cancelled'],
] as const)('%s: headline, check run and announcement', (state, reason, headline, status, conclusion) => {
  const s = presentedState(record(state, reason), shown, 'main');
  expect(s.headline).toMatch(headline);
  expect(s.checkRun).toEqual(conclusion ? { status, conclusion } : { status });
  expect(s.announce).toBe(state === 'failed' || state === 'cancelled');
});

test('a failure says why, with the reason name, and what to do', () => {
  const body = liveComment(record('failed', 'TEST_RUN_TIMEOUT'), shown, 'main');
  expect(body.startsWith(LIVE_MARKER)).toBe(true);
  expect(body).toContain('did not finish before the testing timeout (`TEST_RUN_TIMEOUT`)');
  expect(body).toContain('/trunk merge');
});

test('an announcement mentions the author and carries its own marker', () => {
  const text = announcement(record('cancelled', 'PR_PUSHED_TO'), shown, 'main', 4);
  expect(text).toMatch(
    /^<!-- railyard:announce sub-1\/4 -->\n@ada this PR left the merge queue for `main` \(cancelled\)/,
  );
});

test('a PR GitHub blocks says what it waits for', () => {
  const r = record('not_ready', 'API_REQUESTED');
  r.details!.readiness.blockedBy = 'it waits for the required check `lint` on its head commit';
  expect(liveComment(r, shown, 'main')).toContain(
    'It enters the queue as soon as it is ready; now it waits for the required check `lint` on its head commit.',
  );
});

test('an unknown reason is shown by its name', () => {
  expect(liveComment(record('failed', 'SOMETHING_NEW'), shown, 'main')).toContain('`SOMETHING_NEW`');
});
