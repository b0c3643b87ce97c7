/**
 * The record fold shared by the PR workflow and the read projection (contract/pr-record.ts): notices
 * apply in seq order exactly once, refreshes only on top of the transition they follow.
 */
import {
  foldRefresh,
  foldTransition,
  newRecordFold,
  type PrDetails,
  type PrDetailsRefresh,
  type PrTransitionNotice,
} from '../../../contract';
import type { PrState } from '../../../engine';
import { prDetails } from '../../support/pr-details';

const input = { submissionId: 's1', prNumber: 7, submittedAt: 1_000 };
const details = (title: string, headSha = 'abc'): PrDetails => prDetails({ title, headSha });
const notice = (seq: number, to: PrState, extra: Partial<PrTransitionNotice> = {}): PrTransitionNotice => ({
  submissionId: 's1',
  seq,
  transition: {
    at: 1_000 + seq,
    from: null,
    to,
    reason: `R${seq}`,
    testRunId: to === 'merged' ? 'run-1' : null,
  },
  details: details(`t${seq}`),
  ...extra,
});
const refresh = (afterSeq: number, title: string): PrDetailsRefresh => ({
  submissionId: 's1',
  afterSeq,
  details: details(title, ''),
});

test('in order: each notice applies once; a duplicate changes nothing', () => {
  const f = newRecordFold(input);
  expect(foldTransition(f, notice(1, 'pending')).applied).toHaveLength(1);
  expect(foldTransition(f, notice(1, 'pending')).applied).toHaveLength(0);
  expect(foldTransition(f, notice(2, 'testing')).applied).toHaveLength(1);
  expect(f.record).toMatchObject({ state: 'testing', stateChangedAt: 1_002, reason: 'R2' });
  expect(f.record.timeline.map((t) => t.to)).toEqual(['pending', 'testing']);
});

test('out of order: a notice waits for the ones before it, then all apply in seq order', () => {
  const f = newRecordFold(input);
  expect(foldTransition(f, notice(3, 'merged')).applied).toHaveLength(0);
  expect(foldTransition(f, notice(2, 'testing')).applied).toHaveLength(0);
  expect(f.record.timeline).toHaveLength(0);
  const { applied } = foldTransition(f, notice(1, 'pending'));
  expect(applied.map((n) => n.seq)).toEqual([1, 2, 3]);
  expect(f.pending).toHaveLength(0);
  expect(f.record).toMatchObject({
    state: 'merged',
    isCurrentlySubmittedToQueue: false,
    verifiedByTestRun: 'run-1',
  });
});

test('a refresh applies on top of its transition, waits for it if early, and never on a terminal record', () => {
  const f = newRecordFold(input);
  foldTransition(f, notice(1, 'not_ready'));
  expect(foldRefresh(f, refresh(1, 'retitled'))).toBe(true);
  // The refresh keeps the head it was not told about.
  expect(f.record.details).toMatchObject({ title: 'retitled', headSha: 'abc' });
  expect(foldRefresh(f, refresh(0, 'stale'))).toBe(false);
  expect(foldRefresh(f, refresh(2, 'early'))).toBe(false);
  expect(foldTransition(f, notice(2, 'pending')).refreshes).toBe(1);
  expect(f.record.details?.title).toBe('early');
  foldTransition(f, notice(3, 'cancelled'));
  expect(foldRefresh(f, refresh(3, 'after the end'))).toBe(false);
  expect(f.record.details?.title).toBe('t3');
});

test('a fold survives JSON (the projection stores it as jsonb) and goes on the same', () => {
  const a = newRecordFold(input);
  foldTransition(a, notice(1, 'pending'));
  foldTransition(a, notice(3, 'merged'));
  const b = JSON.parse(JSON.stringify(a)) as typeof a;
  foldTransition(a, notice(2, 'testing'));
  foldTransition(b, notice(2, 'testing'));
  expect(b).toEqual(a);
});

test("a culprit's record names the runs that convicted it; other records carry no such list", () => {
  const f = newRecordFold(input);
  foldTransition(f, notice(1, 'pending'));
  foldTransition(f, notice(2, 'testing'));
  expect(f.record.convictedBy).toBeUndefined();
  const failed = notice(3, 'failed');
  failed.transition = {
    ...failed.transition,
    testRunId: 'chunk-2',
    convictedBy: ['batch-1', 'chunk-1', 'chunk-2'],
  };
  foldTransition(f, failed);
  expect(f.record).toMatchObject({ state: 'failed', convictedBy: ['batch-1', 'chunk-1', 'chunk-2'] });
  expect(f.record.timeline.at(-1)?.convictedBy).toEqual(['batch-1', 'chunk-1', 'chunk-2']);
});
