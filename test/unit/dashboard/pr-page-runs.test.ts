/**
 * The runs a PR's page lists (api/dashboard/routes/pull-request.ts): named in words, linked to their
 * log only when it is kept, and otherwise saying why not; the page leads with the record's sentence,
 * else its last transition's.
 */
import { leadSentence, runsOnPage } from '../../../api/dashboard/routes/pull-request';
import type { LoggedTransition } from '../../../api/dashboard/store/reads';
import type { ReasonDetail } from '../../../contract';

const row = (r: Partial<LoggedTransition>): LoggedTransition => ({
  submissionId: 's',
  seq: 1,
  from: 'pending',
  to: 'testing',
  reason: 'TEST_RUN_STARTED',
  testRunId: null,
  batch: [4],
  bisection: false,
  testBranchSha: null,
  at: new Date('2026-01-02T03:04:05Z'),
  ...r,
});

// Newest first, as the event log reads them.
const timeline = [
  row({ to: 'failed', reason: 'START_TEST_RUN_MERGE_CONFLICT', testRunId: 'c' }),
  row({ testRunId: 'c' }),
  row({ to: 'pending', reason: 'BISECTION_REQUIRED', testRunId: 'b', batch: [1, 4] }),
  row({ testRunId: 'b', batch: [1, 4] }),
  row({ testRunId: 'never', batch: [3, 4], to: 'pending_failure', reason: 'START_TEST_RUN_MERGE_CONFLICT' }),
  row({ testRunId: 'gone', bisection: true, to: 'pending', reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }),
];
const conflict: ReasonDetail = { kind: 'conflict', pr: 4, files: ['one.txt'], onTopOf: [1] };

test('a run with a kept log is linked; one that never started says why; the decided one names the conflict', () => {
  const runs = runsOnPage(
    timeline,
    new Set(['b']),
    { reasonDetail: conflict, decidedByTestRun: 'c' },
    'main',
  );
  expect(runs.map((r) => [r.id, r.name, r.log, r.noLog])).toEqual([
    [
      'c',
      'the run of #4',
      null,
      'it never started: #4 conflicts with #1 (tested ahead of it on main) in file one.txt',
    ],
    ['b', 'the batch run #1 #4', '/ui/test-runs/b/log', null],
    ['never', 'the batch run #3 #4', null, 'it never started: its test branch could not be built'],
    ['gone', 'the bisection run of #4 alone', null, expect.stringMatching(/^no log is kept for it/)],
  ]);
});

test('a run still testing says its log comes when it ends', () => {
  const [run] = runsOnPage([row({ testRunId: 'now' })], new Set(), null, 'main');
  expect(run!.noLog).toBe('it is running; its log is kept when it ends');
});

test('the page leads with the record sentence, else the last transition in words', () => {
  expect(leadSentence({ reasonText: 'Merged: x.' }, timeline, 'main')).toBe('Merged: x.');
  expect(leadSentence(null, [row({ to: 'pending', reason: 'BISECTION_REQUIRED' })], 'main')).toBe(
    'Queued: its batch failed, so it is tested in smaller groups to find the PR that broke it.',
  );
  expect(leadSentence(null, [], 'main')).toBeNull();
});
