/**
 * Run slots: the per-organisation cap on concurrent test runs (issue 17, fair sharing). Executors serve
 * one task queue in arrival order; without a cap one organisation's fifty runs would take every
 * executor slot and every other organisation's merge would wait behind them. A test run takes one of
 * its organisation's slots before its executor activity is scheduled, and gives it back when it ends.
 *
 * Invariants:
 * - At most `perOrganisation` unexpired slots per organisation: taking one happens under a transaction
 *   advisory lock on the organisation, so two runs cannot both take the last one. The lock is only ever
 *   tried, never waited for with a connection held (pool starvation under a burst).
 * - Within an organisation, waiting runs take freed slots in the order they first asked: a run that is
 *   not the oldest live waiter waits while an older one does (run_slot_waiters, migration 0019).
 * - Taking is idempotent per run (an activity retry keeps the slot it has).
 * - A slot expires at `leaseMs` after it was taken, and a waiter that has not asked for WAITER_STALE_MS
 *   is ignored and swept: a run whose workflow was terminated costs its organisation a bounded time only.
 * - Releasing answers the workflow id of the organisation's oldest live waiter, for the caller to wake.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../../stores/transaction';

/**
 * As many runs as one queue at concurrency 4 starts (the concurrency the queue benchmarks run, and an
 * executor's default slots), so such a queue is not held back by its own organisation's cap; it was 3
 * (issue 25). Fair sharing then needs more executor slots in total than this.
 */
export const DEFAULT_RUNS_PER_ORGANISATION = 4;
/** A waiter asks again at least every 30 s (the test-run workflow's longest wait). */
export const WAITER_STALE_MS = 120_000;
/** Tries for the organisation's lock before answering "not now" (the run asks again when woken). */
const LOCK_ATTEMPTS = 100;

export interface RunSlots {
  /** Whether the run holds a slot now (taken now or before); if not, it is recorded as waiting. */
  take(input: {
    organisationId: string;
    runId: string;
    workflowId: string;
    leaseMs: number;
  }): Promise<boolean>;
  /** Frees the run's slot; answers the workflow id of its organisation's oldest live waiter, if any. */
  release(runId: string): Promise<string | null>;
  /** Unexpired slots the organisation holds. */
  held(organisationId: string): Promise<number>;
}

export function createRunSlots(pool: Pool, perOrganisation = DEFAULT_RUNS_PER_ORGANISATION): RunSlots {
  type TakeInput = Parameters<RunSlots['take']>[0];

  function tryTake({ organisationId, runId, workflowId, leaseMs }: TakeInput): Promise<boolean | 'busy'> {
    return inTransaction(pool, async (client) => {
      const lock = await client.query<{ got: boolean }>(
        "SELECT pg_try_advisory_xact_lock(hashtextextended('run_slots:' || $1, 0)) AS got",
        [organisationId],
      );
      if (!lock.rows[0]?.got) return 'busy';
      await client.query('DELETE FROM run_slots WHERE organisation_id = $1 AND expires_at < now()', [
        organisationId,
      ]);
      await client.query(
        `DELETE FROM run_slot_waiters WHERE organisation_id = $1
           AND seen_at < now() - make_interval(secs => $2::double precision)`,
        [organisationId, WAITER_STALE_MS / 1000],
      );
      const mine = await client.query('SELECT 1 FROM run_slots WHERE test_run_id = $1', [runId]);
      if (mine.rowCount) return true;
      // Ask (again): the first ask fixes the run's place among the waiters.
      const waiter = await client.query<{ since: Date }>(
        `INSERT INTO run_slot_waiters (test_run_id, organisation_id, workflow_id) VALUES ($1, $2, $3)
         ON CONFLICT (test_run_id) DO UPDATE SET seen_at = now() RETURNING since`,
        [runId, organisationId, workflowId],
      );
      const { rows } = await client.query<{ held: string; ahead: string }>(
        `SELECT (SELECT count(*) FROM run_slots WHERE organisation_id = $1) AS held,
                (SELECT count(*) FROM run_slot_waiters WHERE organisation_id = $1
                   AND (since, test_run_id) < ($2, $3)) AS ahead`,
        [organisationId, waiter.rows[0]!.since, runId],
      );
      const free = perOrganisation - Number(rows[0]?.held ?? 0);
      // The freed slots go to the oldest waiters first: this run only if fewer are ahead than are free.
      if (Number(rows[0]?.ahead ?? 0) >= free) return false;
      await client.query('DELETE FROM run_slot_waiters WHERE test_run_id = $1', [runId]);
      await client.query(
        `INSERT INTO run_slots (test_run_id, organisation_id, expires_at)
         VALUES ($1, $2, now() + make_interval(secs => $3::double precision))`,
        [runId, organisationId, leaseMs / 1000],
      );
      return true;
    });
  }

  return {
    async take(input) {
      // Never wait for the lock holding a connection: fifty runs of one organisation asking at once
      // would take the whole pool from every other activity. Busy: let go, pause, try again.
      for (let attempt = 1; ; attempt += 1) {
        const answer = await tryTake(input);
        if (answer !== 'busy') return answer;
        if (attempt >= LOCK_ATTEMPTS) return false;
        await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
      }
    },

    async release(runId) {
      const { rows } = await pool.query<{ workflow_id: string }>(
        `WITH gone AS (DELETE FROM run_slots WHERE test_run_id = $1 RETURNING organisation_id),
              left_waiting AS (DELETE FROM run_slot_waiters WHERE test_run_id = $1)
         SELECT w.workflow_id FROM run_slot_waiters w JOIN gone g USING (organisation_id)
          WHERE w.test_run_id <> $1
            AND w.seen_at >= now() - make_interval(secs => $2::double precision)
          ORDER BY w.since, w.test_run_id LIMIT 1`,
        [runId, WAITER_STALE_MS / 1000],
      );
      return rows[0]?.workflow_id ?? null;
    },

    async held(organisationId) {
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM run_slots WHERE organisation_id = $1 AND expires_at > now()',
        [organisationId],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
