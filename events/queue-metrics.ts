/**
 * The merge-queue metrics (trunk-compat §6) as data, computed from the event log by a pure function:
 * the current state of each submission for the gauges, and the transitions of the last hour for the
 * rolling counts and the duration histograms. No clock: `now` is an input.
 *
 * Definitions (each observation belongs to the hour in which its closing transition happened):
 * - depth: submissions now in pending, testing, tests_passed or pending_failure (not_ready excluded);
 *   awaiting mergeability: now in not_ready; testing slots: now in testing.
 * - conclusions: transitions into merged / failed / cancelled.
 * - restarts: transitions testing → pending.
 * - wait: a pending → testing transition observes how long that pending spell lasted.
 * - test duration: a transition out of testing observes how long that testing spell lasted.
 * - time in queue: a transition into a terminal state observes the time since the first transition,
 *   minus the time spent in not_ready; a submission that never left not_ready is not observed.
 * - queue_type: `bisection` when the transition that decides it was made in a bisection run: the
 *   latest one for the gauges, the closing one for conclusions and time in queue, the one that
 *   started the testing spell for restarts, waits and test durations.
 */
import { isTerminal, type PrState, type TerminalPrState } from '../engine';

export const QUEUE_TYPES = ['main', 'bisection'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

export const WINDOW_MS = 60 * 60 * 1000;

export interface QueueRef {
  host: string;
  owner: string;
  name: string;
  targetBranch: string;
}

export interface QueueTypeMetrics {
  depth: number;
  awaitingMergeability: number;
  testing: number;
  conclusions: Record<TerminalPrState, number>;
  restarts: number;
  waitSeconds: number[];
  testSeconds: number[];
  timeInQueueSeconds: number[];
}

export interface QueueMetrics {
  queue: QueueRef;
  byType: Record<QueueType, QueueTypeMetrics>;
}

/** How many submissions of a queue are now in a state (from pr_submissions). */
export interface CurrentCount extends QueueRef {
  state: PrState;
  isBisection: boolean;
  count: number;
}

/** A transition as the metrics need it; `at` in epoch milliseconds. */
export interface LoggedTransition extends QueueRef {
  submissionId: string;
  seq: number;
  from: PrState | null;
  to: PrState;
  isBisection: boolean;
  at: number;
}

const queueKey = (q: QueueRef) => JSON.stringify([q.host, q.owner, q.name, q.targetBranch]);
const typeOf = (bisection: boolean): QueueType => (bisection ? 'bisection' : 'main');
const seconds = (ms: number) => Math.max(0, ms) / 1000;

function emptyTypeMetrics(): QueueTypeMetrics {
  return {
    depth: 0,
    awaitingMergeability: 0,
    testing: 0,
    conclusions: { merged: 0, failed: 0, cancelled: 0 },
    restarts: 0,
    waitSeconds: [],
    testSeconds: [],
    timeInQueueSeconds: [],
  };
}

function addCurrent(m: QueueTypeMetrics, state: PrState, count: number): void {
  switch (state) {
    case 'not_ready':
      m.awaitingMergeability += count;
      break;
    case 'testing':
      m.testing += count;
      m.depth += count;
      break;
    case 'pending':
    case 'tests_passed':
    case 'pending_failure':
      m.depth += count;
      break;
    case 'merged':
    case 'failed':
    case 'cancelled':
      break;
  }
}

/** Time outside not_ready from the first transition up to index `end`. */
function admittedTime(history: LoggedTransition[], end: number): number | null {
  let total = 0;
  let admitted = false;
  for (let i = 0; i < end; i += 1) {
    const cur = history[i]!;
    if (cur.to === 'not_ready') continue;
    admitted = true;
    total += history[i + 1]!.at - cur.at;
  }
  return admitted ? total : null;
}

/** Adds the observations of one submission's history (sorted by seq) inside the window. */
function observe(
  history: LoggedTransition[],
  from: number,
  to: number,
  metricsOf: (bisection: boolean) => QueueTypeMetrics,
): void {
  history.forEach((e, i) => {
    if (e.at < from || e.at > to) return;
    const prev = i > 0 ? history[i - 1] : undefined;
    if (isTerminal(e.to)) {
      const m = metricsOf(e.isBisection);
      m.conclusions[e.to] += 1;
      const inQueue = admittedTime(history, i);
      if (inQueue !== null) m.timeInQueueSeconds.push(seconds(inQueue));
    }
    if (e.from === 'pending' && e.to === 'testing' && prev?.to === 'pending') {
      metricsOf(e.isBisection).waitSeconds.push(seconds(e.at - prev.at));
    }
    if (e.from === 'testing' && prev?.to === 'testing') {
      const m = metricsOf(prev.isBisection);
      m.testSeconds.push(seconds(e.at - prev.at));
      if (e.to === 'pending') m.restarts += 1;
    }
  });
}

export function computeQueueMetrics(input: {
  queues: readonly QueueRef[];
  current: readonly CurrentCount[];
  /** Every transition of each submission that has one in the window, any order. */
  histories: readonly LoggedTransition[];
  now: number;
  windowMs?: number;
}): QueueMetrics[] {
  const byQueue = new Map<string, QueueMetrics>();
  for (const queue of input.queues) {
    byQueue.set(queueKey(queue), {
      queue: { host: queue.host, owner: queue.owner, name: queue.name, targetBranch: queue.targetBranch },
      byType: { main: emptyTypeMetrics(), bisection: emptyTypeMetrics() },
    });
  }
  for (const c of input.current) {
    const m = byQueue.get(queueKey(c));
    if (m) addCurrent(m.byType[typeOf(c.isBisection)], c.state, c.count);
  }
  const submissions = new Map<string, LoggedTransition[]>();
  for (const t of input.histories) {
    const list = submissions.get(t.submissionId) ?? [];
    list.push(t);
    submissions.set(t.submissionId, list);
  }
  const from = input.now - (input.windowMs ?? WINDOW_MS);
  for (const history of submissions.values()) {
    history.sort((a, b) => a.seq - b.seq);
    const m = byQueue.get(queueKey(history[0]!));
    if (m) observe(history, from, input.now, (b) => m.byType[typeOf(b)]);
  }
  return [...byQueue.values()];
}
