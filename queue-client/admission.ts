/**
 * AdmissionWatcher: waits for submissions to be admitted by their queue (workflows/queue/admission.ts).
 * A submit's update answers at once; the PR is read afterwards, so a caller that wants the outcome waits
 * here until the queue reports the submission settled (its record can be read) or rejected.
 *
 * Rule: one poller per queue workflow, asking about every submission waiting on that queue in one query
 * per tick, so a burst of submits costs a few queries instead of one stream per request (queries of a
 * workflow pass one at a time, calls.ts). The tick starts short (admission takes a PR read and one
 * delivery, tens of milliseconds) and backs off to MAX_TICK_MS while nothing new arrives. A query that
 * fails for another reason than a missing queue (a busy or restarting worker) is asked again.
 * Invariants: every waiter ends settled, rejected or with an error by its deadline (`admission_timeout`,
 * or `queue_not_found` for everyone waiting on a queue that is gone); a poller stops when it has no
 * waiters.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { getAdmissionsQuery, type AdmissionState } from '../contract';
import type { TemporalCalls } from './calls';
import { QueueClientError } from './errors';

const FIRST_TICK_MS = 20;
const MAX_TICK_MS = 250;

export type AdmissionOutcome = Exclude<AdmissionState, { state: 'pending' }>;

interface Waiter {
  submissionId: string;
  deadline: number;
  budgetMs: number;
  /** Not asked about yet: its arrival shortens the tick again. */
  fresh: boolean;
  resolve(outcome: AdmissionOutcome): void;
  reject(err: unknown): void;
}

export interface AdmissionWatcher {
  /**
   * Resolves once the submission is settled or rejected; a missing queue (`queue_not_found`) or no
   * outcome within `budgetMs` (`admission_timeout`, default the busy budget) rejects.
   */
  wait(workflowId: string, submissionId: string, budgetMs?: number): Promise<AdmissionOutcome>;
}

export function createAdmissionWatcher(
  temporal: Pick<TemporalCalls, 'call' | 'busyBudgetMs'> & { client: Pick<Client, 'workflow'> },
): AdmissionWatcher {
  /** Waiters per queue workflow; a queue has an entry exactly while its poller runs. */
  const waiting = new Map<string, Waiter[]>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** The states asked for, null when the query failed for a reason worth asking again. */
  async function ask(workflowId: string, ids: string[]): Promise<Record<string, AdmissionState> | null> {
    try {
      return await temporal.call(
        'submitPullRequest',
        () => temporal.client.workflow.getHandle(workflowId).query(getAdmissionsQuery, ids),
        { queryOf: workflowId },
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        throw new QueueClientError({ kind: 'queue_not_found', workflowId }, { cause: err });
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
        else if (now >= w.deadline)
          w.reject(
            new QueueClientError({
              kind: 'admission_timeout',
              submissionId: w.submissionId,
              budgetMs: w.budgetMs,
            }),
          );
        else list.push(w);
      }
      if (list.length === 0) {
        waiting.delete(workflowId);
        return;
      }
    }
  }

  return {
    wait(workflowId, submissionId, budgetMs = temporal.busyBudgetMs) {
      return new Promise<AdmissionOutcome>((resolve, reject) => {
        const deadline = Date.now() + budgetMs;
        const waiter: Waiter = { submissionId, deadline, budgetMs, fresh: true, resolve, reject };
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
