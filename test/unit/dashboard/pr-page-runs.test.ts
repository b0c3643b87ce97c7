/**
 * The runs a PR's page lists (api/dashboard/routes/pull-request.ts): named in words, linked to their
 * log only when it is kept, and otherwise saying why not; the page leads with the record's sentence,
 * else its last transition's.
 */
import { leadSentence, runsOnPage, viewOfRecord } from '../../../api/dashboard/routes/pull-request';
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
    4,
  );
  expect(runs.map((r) => [r.id, r.name, r.log, r.noLog])).toEqual([
    [
      'c',
      'the run of #4',
      null,
      'it never started: #4 conflicts with #1 (tested ahead of it on main) in file one.txt',
    ],
    // Opened from #4's page: the log names #4 first, though the batch's branch is named after #1.
    ['b', 'the batch run #1 #4', '/ui/test-runs/b/log?pr=4', null],
    ['never', 'the batch run #3 #4', null, 'it never started: its test branch could not be built'],
    ['gone', 'the bisection run of #4 alone', null, expect.stringMatching(/^no log is kept for it/)],
  ]);
});

test('a run still testing says its log comes when it ends', () => {
  const [run] = runsOnPage([row({ testRunId: 'now' })], new Set(), null, 'main', 4);
  expect(run!.noLog).toBe('it is running; its log is kept when it ends');
});

test('the page leads with the record sentence, else the last transition in words', () => {
  expect(leadSentence({ reasonText: 'Merged: x.' }, timeline, 'main')).toBe('Merged: x.');
  expect(leadSentence(null, [row({ to: 'pending', reason: 'BISECTION_REQUIRED' })], 'main')).toBe(
    'Queued: its batch failed, so it is tested in smaller groups to find the PR that broke it.',
  );
  expect(leadSentence(null, [], 'main')).toBeNull();
});

test("every log link of the page carries ?pr=, the whole record's API log links too", () => {
  const id = '46c8e239-0f7e-4a57-9a64-2b1f1f7c3d10';
  const runs = runsOnPage([row({ testRunId: id, batch: [1, 2, 3] })], new Set([id]), null, 'main', 3);
  expect(runs.map((r) => r.log)).toEqual([`/ui/test-runs/${id}/log?pr=3`]);
  const view = viewOfRecord(
    { testRuns: [{ testRunId: id, logUrl: `http://127.0.0.1:8080/v1/testRuns/${id}/log` }] },
    3,
  );
  expect(view.links).toEqual([{ key: `testRuns ${id} logUrl`, href: `/ui/test-runs/${id}/log?pr=3` }]);
  // Any other link is left as it is.
  expect(viewOfRecord({ hostUrl: 'https://example.com/pr/3' }, 3).links).toEqual([
    { key: 'hostUrl', href: 'https://example.com/pr/3' },
  ]);
});
