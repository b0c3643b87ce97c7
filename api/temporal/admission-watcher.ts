/**
 * AdmissionWatcher: waits for submissions to be admitted by their queue (workflows/queue/admission.ts).
 * A submit's update answers at once; the PR is read afterwards, so the API waits here until the queue
 * reports the submission settled (its record can be read) or rejected.
 *
 * Rule: one poller per queue workflow, asking about every submission waiting on that queue in one query
 * per tick, so a burst of submits costs a few queries instead of one stream per request (queries of a
 * workflow pass one at a time, client.ts). The tick starts short (admission takes a PR read and one
 * delivery, tens of milliseconds) and backs off to MAX_TICK_MS while nothing new arrives.
 * Invariants: every waiter ends settled, rejected or with an error by its deadline; a poller stops when
 * it has no waiters.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { getAdmissionsQuery, type AdmissionState } from '../../contract';
import { unavailable } from '../errors';
import type { TemporalGateway } from './client';

const FIRST_TICK_MS = 20;
const MAX_TICK_MS = 250;

export type AdmissionOutcome = Exclude<AdmissionState, { state: 'pending' }>;

interface Waiter {
  submissionId: string;
  deadline: number;
  /** Not asked about yet: its arrival shortens the tick again. */
  fresh: boolean;
  resolve(outcome: AdmissionOutcome): void;
  reject(err: unknown): void;
}

export interface AdmissionWatcher {
  /** Resolves once the submission is settled or rejected; a missing queue or a timeout rejects. */
  wait(workflowId: string, submissionId: string): Promise<AdmissionOutcome>;
}

export function createAdmissionWatcher(
  temporal: Pick<TemporalGateway, 'call' | 'busyBudgetMs'> & { client: Pick<Client, 'workflow'> },
): AdmissionWatcher {
  /** Waiters per queue workflow; a queue has an entry exactly while its poller runs. */
  const waiting = new Map<string, Waiter[]>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const timedOut = () =>
    unavailable(
      `The merge queue did not finish admitting the pull request within ${temporal.busyBudgetMs} ms; submit it again (a retried submit is applied once).`,
    );

  /** The states asked for, null when the query failed for a reason worth asking again. */
  async function ask(workflowId: string, ids: string[]): Promise<Record<string, AdmissionState> | null> {
    try {
      return await temporal.call(
        'submitPullRequest',
        () => temporal.client.workflow.getHandle(workflowId).query(getAdmissionsQuery, ids),
        { queryOf: workflowId },
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw err;
      return null;
    }
  }

  /** Runs until `list` is empty; leaves the map in the same synchronous step, so no waiter is stranded. */
  async function poll(workflowId: string, list: Waiter[]): Promise<void> {
    let tick = FIRST_TICK_MS;
    for (;;) {
      await sleep(tick);
      // Waiters arriving while we ask are pushed onto `list` and seen next tick.
      const batch = list.splice(0, list.length);
      tick = batch.some((w) => w.fresh) ? FIRST_TICK_MS : Math.min(MAX_TICK_MS, Math.round(tick * 1.5));
      let states: Record<string, AdmissionState> | null;
      try {
        states = await ask(workflowId, [...new Set(batch.map((w) => w.submissionId))]);
      } catch (err) {
        // The queue is gone (deleted meanwhile): everyone waiting on it fails alike.
        waiting.delete(workflowId);
        for (const w of [...batch, ...list]) w.reject(err);
        return;
      }
      const now = Date.now();
      for (const w of batch) {
        w.fresh = false;
        const state = states?.[w.submissionId];
        if (state && state.state !== 'pending') w.resolve(state);
        else if (now >= w.deadline) w.reject(timedOut());
        else list.push(w);
      }
      if (list.length === 0) {
        waiting.delete(workflowId);
        return;
      }
    }
  }

  return {
    wait(workflowId, submissionId) {
      return new Promise<AdmissionOutcome>((resolve, reject) => {
        const deadline = Date.now() + temporal.busyBudgetMs;
        const waiter: Waiter = { submissionId, deadline, fresh: true, resolve, reject };
        const running = waiting.get(workflowId);
        if (running) {
          running.push(waiter);
          return;
        }
        const list = [waiter];
        waiting.set(workflowId, list);
        void poll(workflowId, list);
      });
    },
  };
}
