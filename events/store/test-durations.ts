/**
 * How long one queue's recent test runs took, from the event log: for each of its latest runs, the time
 * from its PRs entering `testing` to the first of them leaving it with a verdict (tests passed, or a
 * failure). The estimate of time to merge (api/temporal/estimate.ts) takes their median.
 *
 * Rules: only runs that reached a verdict count (a run cut short by a restart or a cancellation says
 * nothing about test duration); at most MAX_RUNS_MEASURED, the newest; one organisation's queue only.
 */
import type { Pool } from 'pg';

export const MAX_RUNS_MEASURED = 50;

export interface QueueOf {
  organisationId: string;
  host: string;
  owner: string;
  name: string;
  targetBranch: string;
}

export type TestDurations = (queue: QueueOf) => Promise<number[]>;

export function createTestDurations(pool: Pool): TestDurations {
  return async (q) => {
    const { rows } = await pool.query<{ ms: string }>(
      `SELECT EXTRACT(EPOCH FROM (ended - started)) * 1000 AS ms FROM (
         SELECT test_run_id,
                min(at) FILTER (WHERE to_state = 'testing') AS started,
                min(at) FILTER (WHERE from_state = 'testing'
                                AND to_state IN ('tests_passed', 'pending_failure', 'failed', 'merged')) AS ended
           FROM pr_transitions
          WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5
            AND test_run_id IS NOT NULL AND at > now() - interval '30 days'
          GROUP BY test_run_id) runs
        WHERE started IS NOT NULL AND ended IS NOT NULL AND ended >= started
        ORDER BY ended DESC LIMIT $6`,
      [q.organisationId, q.host, q.owner, q.name, q.targetBranch, MAX_RUNS_MEASURED],
    );
    return rows.map((r) => Number(r.ms));
  };
}
