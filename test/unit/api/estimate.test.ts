/**
 * The estimate of time to merge (api/temporal/estimate.ts) from the queue's own history (issue 29: the
 * demo said "estimated 0 s to merge … it took 5 s"): median test run D times the PR's rounds, plus the
 * median landing L; no number before the queue measured a run, nor for a run already longer than every
 * measured one; each answer carries its sentence.
 */
import type { PullRequestRecord } from '../../../contract';
import type { QueueView } from '../../../api/schemas/queue';
import { estimateTimeToMerge, median } from '../../../api/temporal/estimate';

const NOW = Date.parse('2026-11-27T12:00:00Z');

/** A queue of PRs 1..n (in that order) testing `concurrency` groups of `batch` PRs (0: no batching). */
const queueOf = (n: number, concurrency = 1, batch = 0) =>
  ({
    concurrency,
    batch: batch > 0,
    batchingMinSize: Math.max(1, batch),
    enqueuedPullRequests: Array.from({ length: n }, (_, i) => ({ prNumber: i + 1 })),
  }) as unknown as QueueView;

const recordOf = (prNumber: number, state: PullRequestRecord['state'], stateChangedAt = NOW) =>
  ({ prNumber, state, stateChangedAt, isCurrentlySubmittedToQueue: true }) as unknown as PullRequestRecord;

const SECOND = 1_000;
/** Ten measured runs around 5 s (median 5 s) and landings of 2 s. */
const history = {
  testRuns: [4, 5, 5, 6, 5, 4, 6, 5, 5, 7].map((s) => s * SECOND),
  landings: [2 * SECOND, 2 * SECOND],
};

const estimate = (record: PullRequestRecord, queue: QueueView, h = history) =>
  estimateTimeToMerge({ record, queue, history: h, now: NOW });

it('takes the median', () => {
  expect(median([])).toBeNull();
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

it('says there is no estimate yet before the queue measured a run, with no number', () => {
  expect(estimate(recordOf(1, 'pending'), queueOf(1), { testRuns: [], landings: [] })).toEqual({
    estimatedMergeAt: null,
    remainingSeconds: null,
    position: 1,
    testDurationSeconds: null,
    landingSeconds: null,
    measuredRuns: 0,
    text: 'No estimate yet: no test run of this queue has reached a verdict in the last 30 days.',
  });
});

it('a pending PR: its rounds of the median run, then the median landing', () => {
  // Third in a queue testing one PR at a time: three rounds of 5 s, then 2 s to land.
  expect(estimate(recordOf(3, 'pending'), queueOf(3))).toEqual({
    estimatedMergeAt: new Date(NOW + 17 * SECOND).toISOString(),
    remainingSeconds: 17,
    position: 3,
    testDurationSeconds: 5,
    landingSeconds: 2,
    measuredRuns: 10,
    text: "About 17 s: 3 rounds of the median test run (5 s) and landing (2 s), from this queue's last 10 measured runs.",
  });
  // Two groups of three at once: PRs 1 to 6 are in the first round, 7 in the second.
  expect(estimate(recordOf(6, 'pending'), queueOf(7, 2, 3))?.remainingSeconds).toBe(7);
  expect(estimate(recordOf(7, 'pending'), queueOf(7, 2, 3))?.remainingSeconds).toBe(12);
});

it('a PR being tested: what is left of runs that lasted longer than it has so far', () => {
  // Testing for 4.5 s: the runs longer than that took 5, 5, 6, 5, 6, 5, 5, 7 s (median 5 s): 0.5 s left.
  const testing = estimate(recordOf(1, 'testing', NOW - 4_500), queueOf(2));
  expect(testing).toMatchObject({
    remainingSeconds: 3,
    text: expect.stringMatching(/^About 2\.5 s: the rest of its run \(500 ms\) and landing \(2 s\)/),
  });
  // Testing for 6.5 s, past the median: the one longer run (7 s) is what is left to go by, not 0 s.
  expect(estimate(recordOf(1, 'testing', NOW - 6_500), queueOf(1))?.text).toMatch(
    /^About 2\.5 s: the rest of its run \(500 ms\)/,
  );
  // Longer than every measured run: nothing in the history says how much longer.
  expect(estimate(recordOf(1, 'testing', NOW - 9_000), queueOf(1))).toMatchObject({
    estimatedMergeAt: null,
    remainingSeconds: null,
    text: "No estimate: it has been testing for 9 s, longer than any of this queue's last 10 measured runs.",
  });
});

it('a PR whose tests passed lands; one behind others waits a round; a pending failure is retested', () => {
  expect(estimate(recordOf(1, 'tests_passed'), queueOf(2))?.remainingSeconds).toBe(2);
  expect(estimate(recordOf(2, 'tests_passed'), queueOf(2))?.remainingSeconds).toBe(7);
  expect(estimate(recordOf(1, 'pending_failure'), queueOf(1))?.remainingSeconds).toBe(12);
  // First to land and no landing measured yet: no number rather than "0 s".
  expect(estimate(recordOf(1, 'tests_passed'), queueOf(1), { ...history, landings: [] })).toMatchObject({
    remainingSeconds: null,
    text: 'No estimate: its tests passed and it lands next, but no landing of this queue was measured yet.',
  });
  // Otherwise without a measured landing the sentence says it is left out.
  expect(estimate(recordOf(1, 'pending'), queueOf(1), { ...history, landings: [] })?.text).toBe(
    "About 5 s: one round of the median test run (5 s); landing not included (none measured yet), from this queue's last 10 measured runs.",
  );
});

it('no estimate for a PR that is not ready, left the queue, or is not in it', () => {
  expect(estimate(recordOf(1, 'not_ready'), queueOf(1))).toBeNull();
  expect(estimate({ ...recordOf(1, 'merged'), isCurrentlySubmittedToQueue: false }, queueOf(1))).toBeNull();
  expect(estimate(recordOf(9, 'pending'), queueOf(2))).toBeNull();
  expect(estimateTimeToMerge({ record: recordOf(1, 'pending'), queue: null, history, now: NOW })).toBeNull();
});
