/**
 * The control plane's side of the HTTPS executor protocol (issue 24, ADR 0014): what the API's
 * /v1/executor/* routes do with Temporal and the job store. An executor never speaks to Temporal; the
 * API heartbeats, completes and fails the worker's asynchronously completed executeTestRun activity
 * with the task token stored beside the job (store/executor-jobs.ts).
 *
 * Rules:
 * - A heartbeat Temporal answers "not found" (the attempt timed out and was retried, or the run ended)
 *   or "cancelled" tells the executor to stop; its job goes.
 * - A report reaches Temporal once: under the job's lock, and the job goes only once Temporal took it or
 *   no longer knows the attempt ('stale': the report is refused, never counted). Any other Temporal
 *   failure keeps the job and throws, so the executor retries the report.
 * - PostgreSQL down: the jobs this API process handed out keep their task tokens in memory (bounded),
 *   so their heartbeats and reports still reach Temporal, which alone decides whether an attempt is
 *   current (a second completion of one attempt is refused there, so nothing counts twice); the job
 *   row goes with the next sweep of stale claims. A run in progress outlives an outage of the store.
 * - Queued jobs (no executor free yet) are kept alive by `keepQueuedAlive`, run every few seconds by
 *   the API: their activities are started, so their heartbeat timeout runs while they wait. Jobs whose
 *   activity Temporal no longer knows go.
 * - A job handed out but never received (issue 27: the API process that took the claim died before its
 *   answer reached the executor, or the executor's connection closed) is not lost to the heartbeat
 *   timeout: until its executor first touches it, it is kept alive like a queued job, and after
 *   `handOverMs` without that touch it goes back to the queue under a new id (store/executor-jobs.ts),
 *   for any executor through any API process, within the same attempt. A claim taken for a caller that
 *   went away meanwhile, or whose answer could not be written, goes back at once (`release`).
 */
import {
  ActivityCancelledError,
  ActivityNotFoundError,
  ActivityResetError,
  ApplicationFailure,
  type Client,
} from '@temporalio/client';
import { FAILURE_KINDS, type ClaimedJob, type JobFailure } from '../executor/protocol';
import type { ExecutorJobs, HeldJob } from './store/executor-jobs';

/** The part of Temporal's client the dispatch uses (tests may stand in a recording one). */
export type ActivityCompletion = Pick<
  Client['activity'],
  'heartbeat' | 'complete' | 'fail' | 'reportCancellation'
>;

export type HeartbeatVerdict =
  { kind: 'continue' } | { kind: 'stop'; reason: 'cancelled' | 'gone' } | { kind: 'unknown_job' };

export type SettleVerdict = { kind: 'accepted' } | { kind: 'stale' } | { kind: 'unknown_job' };

export interface ExecutorDispatch {
  /** A job for the executor, waiting up to `waitMs` for one; null when none came. */
  claim(executorId: string, opts: { waitMs: number; signal?: AbortSignal }): Promise<ClaimedJob | null>;
  /** The content token of a job the executor holds, or null. */
  contentToken(executorId: string, jobId: string): Promise<string | null>;
  heartbeat(executorId: string, jobId: string): Promise<HeartbeatVerdict>;
  report(executorId: string, jobId: string, packed: Uint8Array): Promise<SettleVerdict>;
  fail(executorId: string, jobId: string, failure: JobFailure): Promise<SettleVerdict>;
  /** A claim whose answer did not reach `executorId`: back to the queue if the executor never touched it. */
  release(executorId: string, jobId: string): Promise<void>;
  /**
   * One pass over the queued jobs: undelivered claims back to the queue first, then a heartbeat each
   * (claims in hand-over included); gone activities' jobs are dropped.
   */
  keepQueuedAlive(): Promise<void>;
}

export interface DispatchDeps {
  jobs: ExecutorJobs;
  activities: ActivityCompletion;
  /** The deployment's task queue (RAILYARD_TASK_QUEUE): only its jobs are handed out and kept alive. */
  taskQueue: string;
  /** How often a claim looks for a new job while it waits (default 500 ms). */
  claimPollMs?: number;
  /**
   * How long a claimed job may go untouched by its executor before it is taken as never delivered
   * (default HAND_OVER_MS).
   */
  handOverMs?: number;
}

/**
 * An executor touches its job at once (the content fetch) and then every 5 s (heartbeats): a claim
 * untouched for this long never reached it. Well under the activity's 20 s heartbeat timeout, which the
 * keep-alive pass covers meanwhile.
 */
export const HAND_OVER_MS = 10_000;

const toClaimed = (job: HeldJob): ClaimedJob => {
  const { contentToken: _token, ...run } = job.input;
  return { id: job.id, attempt: job.attempt, run };
};

/** Task tokens of jobs handed out by this process, kept for a PostgreSQL outage; oldest go first. */
const HELD_TOKENS = 10_000;

export function createExecutorDispatch(deps: DispatchDeps): ExecutorDispatch {
  const pollMs = deps.claimPollMs ?? 500;
  const tokens = new Map<string, { executorId: string; taskToken: Uint8Array }>();
  const remember = (executorId: string, job: HeldJob) => {
    tokens.set(job.id, { executorId, taskToken: job.taskToken });
    if (tokens.size > HELD_TOKENS) tokens.delete(tokens.keys().next().value!);
  };
  /** The task token of a job this process handed to `executorId`, for when the store cannot answer. */
  const remembered = (executorId: string, jobId: string, err: unknown): Uint8Array => {
    const held = tokens.get(jobId);
    if (!held || held.executorId !== executorId) throw err;
    return held.taskToken;
  };
  const forget = (jobId: string) => {
    tokens.delete(jobId);
    return deps.jobs.drop(jobId).catch(() => undefined); // a store that is down: the sweep takes it
  };

  /** Delivers a report or failure with the job's lock held; 'stale' when Temporal no longer knows it. */
  async function settle(
    executorId: string,
    jobId: string,
    deliver: (taskToken: Uint8Array) => Promise<void>,
  ): Promise<SettleVerdict> {
    const once = async (taskToken: Uint8Array): Promise<SettleVerdict> => {
      try {
        await deliver(taskToken);
        return { kind: 'accepted' };
      } catch (err) {
        if (err instanceof ActivityNotFoundError) return { kind: 'stale' };
        throw err;
      }
    };
    let outcome;
    try {
      outcome = await deps.jobs.settle(jobId, executorId, async (job) => ({
        drop: true,
        result: await once(job.taskToken),
      }));
    } catch (err) {
      if (err instanceof ActivityNotFoundError || !tokens.has(jobId)) throw err;
      // The store failed (down): Temporal alone decides whether the attempt is current.
      const result = await once(remembered(executorId, jobId, err));
      await forget(jobId);
      return result;
    }
    tokens.delete(jobId);
    return outcome.kind === 'missing' ? { kind: 'unknown_job' } : outcome.result;
  }

  return {
    async claim(executorId, { waitMs, signal }) {
      const until = Date.now() + waitMs;
      for (;;) {
        // Never take a job for a caller that is gone: it would sit claimed until the stale-claim sweep.
        if (signal?.aborted) return null;
        const job = await deps.jobs.claim(executorId, deps.taskQueue);
        if (job && signal?.aborted) {
          // The caller left while the job was being taken: the job goes back rather than wait out the hand-over.
          await deps.jobs.release(job.id, executorId).catch(() => undefined);
          return null;
        }
        if (job) {
          remember(executorId, job);
          return toClaimed(job);
        }
        if (signal?.aborted || Date.now() + pollMs > until) return null;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    async contentToken(executorId, jobId) {
      return (await deps.jobs.touch(jobId, executorId))?.input.contentToken ?? null;
    },

    async heartbeat(executorId, jobId) {
      let taskToken: Uint8Array;
      try {
        const job = await deps.jobs.touch(jobId, executorId);
        if (!job) return { kind: 'unknown_job' };
        taskToken = job.taskToken;
      } catch (err) {
        taskToken = remembered(executorId, jobId, err);
      }
      try {
        await deps.activities.heartbeat(taskToken);
        return { kind: 'continue' };
      } catch (err) {
        if (err instanceof ActivityCancelledError) {
          await deps.activities.reportCancellation(taskToken).catch(() => undefined);
          await forget(jobId);
          return { kind: 'stop', reason: 'cancelled' };
        }
        if (err instanceof ActivityNotFoundError || err instanceof ActivityResetError) {
          await forget(jobId);
          return { kind: 'stop', reason: 'gone' };
        }
        throw err;
      }
    },

    report(executorId, jobId, packed) {
      return settle(executorId, jobId, (token) => deps.activities.complete(token, packed));
    },

    fail(executorId, jobId, failure) {
      const { type, nonRetryable } = FAILURE_KINDS[failure.kind];
      return settle(executorId, jobId, (token) =>
        deps.activities.fail(
          token,
          ApplicationFailure.create({ type, message: failure.message, nonRetryable }),
        ),
      );
    },

    async release(executorId, jobId) {
      if (await deps.jobs.release(jobId, executorId)) tokens.delete(jobId);
    },

    async keepQueuedAlive() {
      await deps.jobs.requeueUndelivered(deps.taskQueue, deps.handOverMs ?? HAND_OVER_MS);
      for (const job of await deps.jobs.queued(deps.taskQueue)) {
        try {
          await deps.activities.heartbeat(job.taskToken);
        } catch (err) {
          if (err instanceof ActivityCancelledError)
            await deps.activities.reportCancellation(job.taskToken).catch(() => undefined);
          if (err instanceof ActivityNotFoundError || err instanceof ActivityCancelledError)
            await deps.jobs.drop(job.id);
          // Anything else (Temporal unreachable): the next pass tries again.
        }
      }
    },
  };
}
