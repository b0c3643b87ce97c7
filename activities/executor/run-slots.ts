/**
 * Run slots: the per-organisation cap on concurrent test runs (issue 17, fair sharing). Executors serve
 * one task queue in arrival order; without a cap one organisation's fifty runs would take every
 * executor slot and every other organisation's merge would wait behind them. A test run takes one of
 * its organisation's slots before its executor activity is scheduled, and gives it back when it ends.
 *
 * Invariants:
 * - At most `perOrganisation` unexpired slots per organisation: taking one happens under a transaction
 *   advisory lock on the organisation, so two runs cannot both take the last one.
 * - Taking is idempotent per run (an activity retry keeps the slot it has).
 * - A slot expires at `leaseMs` after it was taken: a run whose release was lost (a terminated workflow)
 *   costs its organisation a slot for a bounded time only.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../platform/transaction';

export const DEFAULT_RUNS_PER_ORGANISATION = 3;

export interface RunSlots {
  /** Whether the run holds a slot now (taken now or before). */
  take(input: { organisationId: string; runId: string; leaseMs: number }): Promise<boolean>;
  release(runId: string): Promise<void>;
  /** Unexpired slots the organisation holds. */
  held(organisationId: string): Promise<number>;
}

export function createRunSlots(pool: Pool, perOrganisation = DEFAULT_RUNS_PER_ORGANISATION): RunSlots {
  return {
    take: ({ organisationId, runId, leaseMs }) =>
      inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended('run_slots:' || $1, 0))", [
          organisationId,
        ]);
        await client.query('DELETE FROM run_slots WHERE organisation_id = $1 AND expires_at < now()', [
          organisationId,
        ]);
        const mine = await client.query('SELECT 1 FROM run_slots WHERE test_run_id = $1', [runId]);
        if (mine.rowCount) return true;
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM run_slots WHERE organisation_id = $1',
          [organisationId],
        );
        if (Number(rows[0]?.n ?? 0) >= perOrganisation) return false;
        await client.query(
          `INSERT INTO run_slots (test_run_id, organisation_id, expires_at)
           VALUES ($1, $2, now() + make_interval(secs => $3::double precision))`,
          [runId, organisationId, leaseMs / 1000],
        );
        return true;
      }),

    async release(runId) {
      await pool.query('DELETE FROM run_slots WHERE test_run_id = $1', [runId]);
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
