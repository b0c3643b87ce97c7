/**
 * The metrics arithmetic over the event log, without a database: the scripted hour gives exactly the
 * expected gauges, rolling counts and observations; the window edges and queue types are respected.
 */
import {
  computeQueueMetrics,
  type CurrentCount,
  type LoggedTransition,
  type QueueMetrics,
} from '../../../events/queue-metrics';
import type { TransitionEvent } from '../../../events/types';
import { MINUTE, submission } from './fixtures';
import { scriptedHour } from './scenario';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ORG = 'org-1';

const logged = (e: TransitionEvent): LoggedTransition => ({
  host: e.repo.host,
  owner: e.repo.owner,
  name: e.repo.name,
  targetBranch: e.targetBranch,
  submissionId: e.submissionId,
  seq: e.seq,
  from: e.from,
  to: e.to,
  isBisection: e.isBisection,
  at: e.at,
});

/** What pr_submissions holds: the latest transition of each submission, counted. */
function currentOf(events: TransitionEvent[]): CurrentCount[] {
  const latest = new Map<string, TransitionEvent>();
  for (const e of events) if ((latest.get(e.submissionId)?.seq ?? 0) < e.seq) latest.set(e.submissionId, e);
  return [...latest.values()].map((e) => ({ ...logged(e), state: e.to, count: 1 }));
}

function compute(events: TransitionEvent[], now = NOW): QueueMetrics[] {
  const queues = [...new Set(events.map((e) => e.targetBranch))].map((targetBranch) => ({
    host: 'github.com',
    owner: 'acme',
    name: 'app',
    targetBranch,
  }));
  return computeQueueMetrics({ queues, current: currentOf(events), histories: events.map(logged), now });
}

test('the scripted hour gives every expected value, per queue and queue type', () => {
  const { events, expected } = scriptedHour(ORG, NOW);
  const metrics = compute(events);
  expect(metrics.map((m) => m.queue.targetBranch).sort()).toEqual(['main', 'release']);
  for (const m of metrics) {
    for (const type of ['main', 'bisection'] as const) {
      const want = expected[m.queue.targetBranch]![type];
      const got = m.byType[type];
      expect({ branch: m.queue.targetBranch, type, ...got }).toEqual({
        branch: m.queue.targetBranch,
        type,
        depth: want.depth,
        awaitingMergeability: want.awaiting,
        testing: want.testing,
        conclusions: { merged: want.merged, failed: want.failed, cancelled: want.cancelled },
        restarts: want.restarts,
        waitSeconds: want.wait,
        testSeconds: want.test,
        timeInQueueSeconds: want.inQueue,
      });
    }
  }
});

test('the window is the last hour: a transition just inside counts, one just outside does not', () => {
  const pr = (prNumber: number, mergedAgo: number) =>
    submission({ organisationId: ORG, prNumber }, [
      { to: 'not_ready', at: NOW - mergedAgo - 10 * MINUTE },
      { to: 'pending', at: NOW - mergedAgo - 10 * MINUTE },
      { to: 'testing', at: NOW - mergedAgo - 5 * MINUTE, testRunId: `r${prNumber}` },
      { to: 'merged', at: NOW - mergedAgo, testRunId: `r${prNumber}` },
    ]);
  const [m] = compute([...pr(1, 60 * MINUTE), ...pr(2, 60 * MINUTE + 1)]);
  expect(m!.byType.main.conclusions.merged).toBe(1);
  expect(m!.byType.main.timeInQueueSeconds).toEqual([600]);
  // #1's test spell ends in the window, #2's one millisecond before it; both waits ended earlier.
  expect(m!.byType.main.testSeconds).toEqual([300]);
  expect(m!.byType.main.waitSeconds).toEqual([]);
});

test('a transition after `now` is not counted', () => {
  const events = submission({ organisationId: ORG, prNumber: 1 }, [
    { to: 'not_ready', at: NOW - MINUTE },
    { to: 'cancelled', at: NOW + MINUTE },
  ]);
  expect(compute(events)[0]!.byType.main.conclusions.cancelled).toBe(0);
});

test('histories arrive in any order; each submission is sorted by seq', () => {
  const { events, expected } = scriptedHour(ORG, NOW);
  const main = compute([...events].reverse()).find((m) => m.queue.targetBranch === 'main')!;
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  expect(sorted(main.byType.main.testSeconds)).toEqual(sorted(expected.main!.main.test));
  expect(main.byType.main.restarts).toBe(expected.main!.main.restarts);
});

test('a queue with no activity in the window still has all-zero metrics', () => {
  const metrics = computeQueueMetrics({
    queues: [{ host: 'github.com', owner: 'acme', name: 'app', targetBranch: 'main' }],
    current: [],
    histories: [],
    now: NOW,
  });
  expect(metrics[0]!.byType.bisection).toEqual({
    depth: 0,
    awaitingMergeability: 0,
    testing: 0,
    conclusions: { merged: 0, failed: 0, cancelled: 0 },
    restarts: 0,
    waitSeconds: [],
    testSeconds: [],
    timeInQueueSeconds: [],
  });
});
