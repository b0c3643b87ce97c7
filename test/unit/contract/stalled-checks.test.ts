/**
 * A stalled-check report (issue 28) as people read it: the record's fold keeps it only while the PR
 * stays where it was reported, the sentence names the checks and the likely cause, the API's record
 * carries it, and the live comment says it with the check names made inert.
 */
import {
  foldRefresh,
  foldTransition,
  newRecordFold,
  stalledChecksSentence,
  testBranchPrefixOf,
  type StalledChecks,
} from '../../../contract';
import { explanationOf } from '../../../api/temporal/record-wire';
import { liveComment } from '../../../github/presentation/pr-comment';
import { prDetails } from '../../support/pr-details';

const details = prDetails();
const STALL: StalledChecks = {
  checks: ['test'],
  cause: 'nothing_reported',
  since: Date.parse('2026-11-27T12:05:00Z'),
  testBranch: 'trunk-merge/pr-7/run-1',
  graceMinutes: 5,
};
const input = { submissionId: 's1', prNumber: 7, submittedAt: 0 };
const testing = (seq: number, to: 'testing' | 'pending_failure') => ({
  submissionId: 's1',
  seq,
  transition: { at: seq, from: null, to, reason: 'R', testRunId: 'run-1' },
  details,
});

test('the fold: a refresh sets it, null clears it, and any transition ends it', () => {
  const f = newRecordFold(input);
  foldTransition(f, testing(1, 'testing'));
  foldRefresh(f, { submissionId: 's1', afterSeq: 1, details, stalledChecks: STALL });
  expect(f.record.stalledChecks).toEqual(STALL);
  foldRefresh(f, { submissionId: 's1', afterSeq: 1, details });
  expect(f.record.stalledChecks).toEqual(STALL);
  foldRefresh(f, { submissionId: 's1', afterSeq: 1, details, stalledChecks: null });
  expect(f.record).not.toHaveProperty('stalledChecks');
  foldRefresh(f, { submissionId: 's1', afterSeq: 1, details, stalledChecks: STALL });
  foldTransition(f, testing(2, 'pending_failure'));
  expect(f.record).not.toHaveProperty('stalledChecks');
});

test('the sentence names the checks, the time and the likely cause with the prefix', () => {
  expect(testBranchPrefixOf('trunk-merge/pr-7/run-1')).toBe('trunk-merge/');
  expect(testBranchPrefixOf('mq/tests/pr-12/abc')).toBe('mq/tests/');
  expect(stalledChecksSentence(STALL)).toBe(
    "Required check `test` has not started 5 minutes after the test branch `trunk-merge/pr-7/run-1` was pushed: no check at all reported on it, so most likely no CI workflow is triggered on the test-branch prefix `trunk-merge/` (GitHub Actions: `on: push: branches: ['trunk-merge/**']`); the testing timeout still ends the run.",
  );
  expect(
    stalledChecksSentence({ ...STALL, checks: ['build', 'e2e'], cause: 'not_produced', graceMinutes: 1 }),
  ).toMatch(
    /^Required checks `build`, `e2e` have not started 1 minute after .*most likely the required check is not produced on branches/,
  );
});

test('the API record carries it (times in ISO) with its sentence; the comment says it, names inert', () => {
  const f = newRecordFold(input);
  foldTransition(f, testing(1, 'testing'));
  foldRefresh(f, {
    submissionId: 's1',
    afterSeq: 1,
    details,
    stalledChecks: { ...STALL, checks: ['ci `@team'] },
  });
  const links = { testRunLogUrl: (id: string) => `http://x/${id}` };
  expect(explanationOf(f.record, links, 'main').stalledChecks).toEqual({
    checks: ['ci `@team'],
    cause: 'nothing_reported',
    since: '2026-11-27T12:05:00.000Z',
    testBranch: 'trunk-merge/pr-7/run-1',
    graceMinutes: 5,
    text: expect.stringContaining('test-branch prefix `trunk-merge/`'),
  });
  const shown = { comment: true, checkRun: true, position: 1, queueLength: 1 };
  const body = liveComment(f.record, shown, 'main');
  expect(body).toContain('**Stalled:**');
  expect(body).toContain('test-branch prefix `trunk-merge/`');
  // In a code span, where nothing renders or links; a backtick cannot close it early.
  expect(body).toContain("required check `ci '@team` has not started");
  f.record.stalledChecks = undefined;
  expect(liveComment(f.record, shown, 'main')).not.toContain('Stalled');
});
