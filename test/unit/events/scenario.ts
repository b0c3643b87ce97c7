/**
 * A scripted hour of two queues of acme/app (main and release), with the metric values it must give
 * at `now`. Shared by the unit test of the arithmetic and the integration test of the endpoint.
 *
 * main:     #1 merged after 10 min not_ready, 5 min wait, 15 min test (time in queue 21 min)
 *           #2 tested, restarted, tested again, now pending_failure
 *           #3 just submitted (not_ready)
 *           #4 since 3 h ago; bisection run in the window, failed (time in queue 140 min > 2 h)
 *           #5 cancelled while not_ready (a conclusion, but never in the queue)
 *           #6 in a bisection run that started before the window (its wait is not in the window)
 *           #7 merged two hours ago (outside the window: nothing)
 * release:  #8 pending
 */
import type { TransitionEvent } from '../../../events/types';
import { MINUTE, submission } from './fixtures';

export interface ExpectedQueueType {
  depth: number;
  awaiting: number;
  testing: number;
  merged: number;
  failed: number;
  cancelled: number;
  restarts: number;
  wait: number[];
  test: number[];
  inQueue: number[];
}

const zero: ExpectedQueueType = {
  depth: 0,
  awaiting: 0,
  testing: 0,
  merged: 0,
  failed: 0,
  cancelled: 0,
  restarts: 0,
  wait: [],
  test: [],
  inQueue: [],
};

export function scriptedHour(organisationId: string, now: number) {
  const at = (minutesAgo: number) => now - minutesAgo * MINUTE;
  const pr = (prNumber: number, targetBranch = 'main') => ({ organisationId, prNumber, targetBranch });
  const events: TransitionEvent[] = [
    ...submission(pr(1), [
      { to: 'not_ready', at: at(50) },
      { to: 'pending', at: at(40) },
      { to: 'testing', at: at(35), testRunId: 'run-1' },
      { to: 'tests_passed', at: at(20), testRunId: 'run-1' },
      { to: 'merged', at: at(19), testRunId: 'run-1' },
    ]),
    ...submission(pr(2), [
      { to: 'not_ready', at: at(30) },
      { to: 'pending', at: at(30) },
      { to: 'testing', at: at(28), testRunId: 'run-2a' },
      { to: 'pending', at: at(20), reason: 'PREREQUISITE_MERGE_ITEM_FAILED' },
      { to: 'testing', at: at(18), testRunId: 'run-2b' },
      { to: 'pending_failure', at: at(10), testRunId: 'run-2b' },
    ]),
    ...submission(pr(3), [{ to: 'not_ready', at: at(5) }]),
    ...submission(pr(4), [
      { to: 'not_ready', at: at(180) },
      { to: 'pending', at: at(170) },
      { to: 'testing', at: at(120), testRunId: 'run-4', batch: [4, 6] },
      { to: 'pending_failure', at: at(90), testRunId: 'run-4', batch: [4, 6] },
      { to: 'pending', at: at(45), reason: 'BISECTION_REQUIRED', isBisection: true },
      { to: 'testing', at: at(40), testRunId: 'run-4b', isBisection: true },
      { to: 'failed', at: at(30), testRunId: 'run-4b', isBisection: true },
    ]),
    ...submission(pr(5), [
      { to: 'not_ready', at: at(20) },
      { to: 'cancelled', at: at(15) },
    ]),
    ...submission(pr(6), [
      { to: 'not_ready', at: at(120) },
      { to: 'pending', at: at(120) },
      { to: 'testing', at: at(70), testRunId: 'run-6', isBisection: true },
    ]),
    ...submission(pr(7), [
      { to: 'not_ready', at: at(150) },
      { to: 'pending', at: at(140) },
      { to: 'testing', at: at(130), testRunId: 'run-7' },
      { to: 'tests_passed', at: at(125), testRunId: 'run-7' },
      { to: 'merged', at: at(120), testRunId: 'run-7' },
    ]),
    ...submission(pr(8, 'release'), [
      { to: 'not_ready', at: at(12) },
      { to: 'pending', at: at(11) },
    ]),
  ];
  const expected: Record<string, Record<'main' | 'bisection', ExpectedQueueType>> = {
    main: {
      main: {
        ...zero,
        depth: 1,
        awaiting: 1,
        merged: 1,
        cancelled: 1,
        restarts: 1,
        wait: [300, 120, 120],
        test: [900, 480, 480],
        inQueue: [1260],
      },
      bisection: { ...zero, depth: 1, testing: 1, failed: 1, wait: [300], test: [600], inQueue: [8400] },
    },
    release: { main: { ...zero, depth: 1 }, bisection: { ...zero } },
  };
  return { events, expected };
}
