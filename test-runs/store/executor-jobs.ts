/**
 * Executor jobs (issue 24, ADR 0014): each row is one attempt of a test run's executeTestRun activity,
 * which the worker completes asynchronously. The worker enqueues the attempt with Temporal's task token
 * and ends its own part; an executor claims the row through the API, which heartbeats, completes or
 * fails the activity with the stored token.
 *
 * Invariants:
 * - One row per test run. A later attempt replaces an earlier one (the earlier timed out and was
 *   retried): the earlier job id is then unknown, so its heartbeats stop the executor and its report is
 *   refused. An earlier attempt never replaces a later one.
 * - A job belongs to its activity's task queue; claims and the keep-alive pass see one task queue only
 *   (deployments sharing a database, as tests do, never take each other's runs).
 * - A job is claimed by one executor only: `claim` takes the oldest queued row FOR UPDATE SKIP LOCKED.
 * - `settle` holds the row's lock while the report or failure goes to Temporal and deletes it only when
 *   the caller says so, so a report is delivered once, and an API that dies mid-report leaves the row
 *   for the executor's retry.
 * - Claimed rows whose executor stopped heartbeating for STALE_CLAIM_MS are swept: Temporal retried or
 *   ended their activity long before.
 * - A claim is "in hand-over" until its executor first touches the job (the content fetch follows the
 *   claim at once, then heartbeats): `claim` sets `heartbeat_at = claimed_at`, every touch moves
 *   `heartbeat_at` past it. A claim whose answer never reached its executor (the API that took it died,
 *   or the executor's connection closed mid-answer; issue 27) stays in hand-over, and `requeueUndelivered`
 *   puts it back in the queue under a new job id, so another executor takes it within the same attempt
 *   and whoever might still hold the old id is told it is gone (404) and can count nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { inTransaction } from '../../stores/transaction';
import type { JobRun } from '../../executor/protocol';

const STALE_CLAIM_MS = 60 * 60_000;
/**
 * A claim put back in the queue: a new id (the old one is unknown from now on), its place in the queue
 * kept (created_at unchanged), no executor.
 */
const REQUEUED = `id = gen_random_uuid(), state = 'queued', executor_id = NULL, claimed_at = NULL, heartbeat_at = NULL`;

/** What the worker stores: what the executor is told, and the content token only the API uses. */
export interface JobInput extends JobRun {
  contentToken: string;
}

export interface HeldJob {
  id: string;
  attempt: number;
  taskToken: Uint8Array;
  input: JobInput;
}

export interface ExecutorJobs {
  /** Stores an attempt (replacing an earlier attempt of the run); answers the job id, null if a later attempt is there. */
  enqueue(job: {
    taskQueue: string;
    attempt: number;
    taskToken: Uint8Array;
    input: JobInput;
  }): Promise<string | null>;
  /** The oldest queued job, now claimed by the executor; null when none is queued. */
  claim(executorId: string, taskQueue: string): Promise<HeldJob | null>;
  /** The job if this executor holds it, with its heartbeat recorded; else null. */
  touch(jobId: string, executorId: string): Promise<HeldJob | null>;
  /**
   * Runs `deliver` under the job's lock if this executor holds it; the row goes when `deliver` answers
   * true. 'missing' when the executor does not hold it (reported, replaced, never its own).
   */
  settle<T>(
    jobId: string,
    executorId: string,
    deliver: (job: HeldJob) => Promise<{ drop: boolean; result: T }>,
  ): Promise<{ kind: 'settled'; result: T } | { kind: 'missing' }>;
  /**
   * Queued jobs and claims still in hand-over (their activities are kept alive while they wait: nobody
   * else heartbeats them); sweeps stale claims on the way.
   */
  queued(taskQueue: string, limit?: number): Promise<HeldJob[]>;
  /** Claims in hand-over for longer than `handOverMs` go back to the queue under new ids; answers how many. */
  requeueUndelivered(taskQueue: string, handOverMs: number): Promise<number>;
  /** Puts a claim whose answer was not delivered back in the queue under a new id, if still in hand-over. */
  release(jobId: string, executorId: string): Promise<boolean>;
  /** Removes a job whose activity Temporal no longer knows. */
  drop(jobId: string): Promise<void>;
  /** Removes the run's job, whatever its attempt (the run ended). */
  dropRun(runId: string): Promise<void>;
}

interface JobRow {
  id: string;
  attempt: number;
  task_token: Buffer;
  input: JobInput;
}

const held = (r: JobRow): HeldJob => ({
  id: r.id,
  attempt: r.attempt,
  taskToken: new Uint8Array(r.task_token),
  input: r.input,
});

export function createExecutorJobs(pool: Pool): ExecutorJobs {
  return {
    async enqueue({ taskQueue, attempt, taskToken, input }) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO executor_jobs (id, test_run_id, task_queue, attempt, task_token, input, state)
         VALUES ($1, $2, $6, $3, $4, $5, 'queued')
         ON CONFLICT (test_run_id) DO UPDATE SET id = excluded.id, attempt = excluded.attempt,
           task_queue = excluded.task_queue,
           task_token = excluded.task_token, input = excluded.input, state = 'queued', executor_id = NULL,
           claimed_at = NULL, heartbeat_at = NULL, created_at = now()
         WHERE executor_jobs.attempt < excluded.attempt
         RETURNING id`,
        [randomUUID(), input.runId, attempt, Buffer.from(taskToken), JSON.stringify(input), taskQueue],
      );
      return rows[0]?.id ?? null;
    },

    async claim(executorId, taskQueue) {
      const { rows } = await pool.query<JobRow>(
        `UPDATE executor_jobs SET state = 'claimed', executor_id = $1, claimed_at = now(), heartbeat_at = now()
          WHERE id = (SELECT id FROM executor_jobs WHERE state = 'queued' AND task_queue = $2
                       ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
          RETURNING id, attempt, task_token, input`,
        [executorId, taskQueue],
      );
      return rows[0] ? held(rows[0]) : null;
    },

    async touch(jobId, executorId) {
      const { rows } = await pool.query<JobRow>(
        `UPDATE executor_jobs SET heartbeat_at = now()
          WHERE id = $1 AND executor_id = $2 AND state = 'claimed'
          RETURNING id, attempt, task_token, input`,
        [jobId, executorId],
      );
      return rows[0] ? held(rows[0]) : null;
    },

    async settle(jobId, executorId, deliver) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<JobRow>(
          `SELECT id, attempt, task_token, input FROM executor_jobs
            WHERE id = $1 AND executor_id = $2 AND state = 'claimed' FOR UPDATE`,
          [jobId, executorId],
        );
        if (!rows[0]) return { kind: 'missing' as const };
        const { drop, result } = await deliver(held(rows[0]));
        if (drop) await client.query('DELETE FROM executor_jobs WHERE id = $1', [jobId]);
        return { kind: 'settled' as const, result };
      });
    },

    async queued(taskQueue, limit = 500) {
      await pool.query(
        `DELETE FROM executor_jobs WHERE state = 'claimed'
           AND heartbeat_at < now() - make_interval(secs => $1::double precision)`,
        [STALE_CLAIM_MS / 1000],
      );
      const { rows } = await pool.query<JobRow>(
        `SELECT id, attempt, task_token, input FROM executor_jobs
          WHERE task_queue = $1 AND (state = 'queued' OR (state = 'claimed' AND heartbeat_at = claimed_at))
          ORDER BY created_at LIMIT $2`,
        [taskQueue, limit],
      );
      return rows.map(held);
    },

    async requeueUndelivered(taskQueue, handOverMs) {
      const { rowCount } = await pool.query(
        `UPDATE executor_jobs SET ${REQUEUED}
          WHERE task_queue = $1 AND state = 'claimed' AND heartbeat_at = claimed_at
            AND claimed_at < now() - make_interval(secs => $2::double precision)`,
        [taskQueue, handOverMs / 1000],
      );
      return rowCount ?? 0;
    },

    async release(jobId, executorId) {
      const { rowCount } = await pool.query(
        `UPDATE executor_jobs SET ${REQUEUED}
          WHERE id = $1 AND executor_id = $2 AND state = 'claimed' AND heartbeat_at = claimed_at`,
        [jobId, executorId],
      );
      return (rowCount ?? 0) > 0;
    },

    async drop(jobId) {
      await pool.query('DELETE FROM executor_jobs WHERE id = $1', [jobId]);
    },

    async dropRun(runId) {
      await pool.query('DELETE FROM executor_jobs WHERE test_run_id = $1', [runId]);
    },
  };
}
