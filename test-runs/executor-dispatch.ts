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
 * - Queued jobs (no executor free yet) are kept alive by `keepQueuedAlive`, run every few seconds by
 *   the API: their activities are started, so their heartbeat timeout runs while they wait. Jobs whose
 *   activity Temporal no longer knows go.
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
  /** One pass over the queued jobs: a heartbeat each; gone activities' jobs are dropped. */
  keepQueuedAlive(): Promise<void>;
}

export interface DispatchDeps {
  jobs: ExecutorJobs;
  activities: ActivityCompletion;
  /** The deployment's task queue (RAILYARD_TASK_QUEUE): only its jobs are handed out and kept alive. */
  taskQueue: string;
  /** How often a claim looks for a new job while it waits (default 500 ms). */
  claimPollMs?: number;
}

const toClaimed = (job: HeldJob): ClaimedJob => {
  const { contentToken: _token, ...run } = job.input;
  return { id: job.id, attempt: job.attempt, run };
};

export function createExecutorDispatch(deps: DispatchDeps): ExecutorDispatch {
  const pollMs = deps.claimPollMs ?? 500;

  /** Delivers a report or failure with the job's lock held; 'stale' when Temporal no longer knows it. */
  async function settle(
    executorId: string,
    jobId: string,
    deliver: (taskToken: Uint8Array) => Promise<void>,
  ): Promise<SettleVerdict> {
    const outcome = await deps.jobs.settle(jobId, executorId, async (job) => {
      try {
        await deliver(job.taskToken);
        return { drop: true, result: { kind: 'accepted' } as SettleVerdict };
      } catch (err) {
        if (err instanceof ActivityNotFoundError)
          return { drop: true, result: { kind: 'stale' } as SettleVerdict };
        throw err;
      }
    });
    return outcome.kind === 'missing' ? { kind: 'unknown_job' } : outcome.result;
  }

  return {
    async claim(executorId, { waitMs, signal }) {
      const until = Date.now() + waitMs;
      for (;;) {
        const job = await deps.jobs.claim(executorId, deps.taskQueue);
        if (job) return toClaimed(job);
        if (signal?.aborted || Date.now() + pollMs > until) return null;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    async contentToken(executorId, jobId) {
      return (await deps.jobs.touch(jobId, executorId))?.input.contentToken ?? null;
    },

    async heartbeat(executorId, jobId) {
      const job = await deps.jobs.touch(jobId, executorId);
      if (!job) return { kind: 'unknown_job' };
      try {
        await deps.activities.heartbeat(job.taskToken);
        return { kind: 'continue' };
      } catch (err) {
        if (err instanceof ActivityCancelledError) {
          await deps.activities.reportCancellation(job.taskToken).catch(() => undefined);
          await deps.jobs.drop(job.id);
          return { kind: 'stop', reason: 'cancelled' };
        }
        if (err instanceof ActivityNotFoundError || err instanceof ActivityResetError) {
          await deps.jobs.drop(job.id);
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

    async keepQueuedAlive() {
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
