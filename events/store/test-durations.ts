/**
 * One queue's own history for the estimate of time to merge (api/temporal/estimate.ts), from the event
 * log:
 * - test runs: for each of its latest runs, the time from its PRs entering `testing` to the first of
 *   them leaving it with a verdict (tests passed, or a failure);
 * - landings: for each of its latest merged PRs, the time from its tests passing to it being merged.
 *
 * Rules: only runs that reached a verdict and PRs that merged count (a run cut short by a restart or a
 * cancellation says nothing about how long testing takes), and a run that never started (its test
 * branch could not be built: a `START_TEST_RUN_…` reason, a conflict) is not a test run: it ended in
 * a fraction of a second, and the demo's estimates were half a second from it (issue 29); at most
 * MAX_RUNS_MEASURED of each, the
 * newest, within the last 30 days; one organisation's queue only. Both read its transitions through
 * pr_transitions_pr_idx's queue prefix.
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

export interface QueueDurations {
  /** Test runs that reached a verdict (ms), newest first. */
  testRuns: number[];
  /** Tests passed to merged, per merged PR (ms), newest first. */
  landings: number[];
}

export type TestDurations = (queue: QueueOf) => Promise<QueueDurations>;

const QUEUE = `organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5
  AND at > now() - interval '30 days'`;

export function createTestDurations(pool: Pool): TestDurations {
  return async (q) => {
    const values = [q.organisationId, q.host, q.owner, q.name, q.targetBranch, MAX_RUNS_MEASURED];
    const [runs, landings] = await Promise.all([
      pool.query<{ ms: string }>(
        `SELECT EXTRACT(EPOCH FROM (ended - started)) * 1000 AS ms FROM (
           SELECT test_run_id,
                  min(at) FILTER (WHERE to_state = 'testing') AS started,
                  min(at) FILTER (WHERE from_state = 'testing'
                                  AND to_state IN ('tests_passed', 'pending_failure', 'failed', 'merged')) AS ended,
                  bool_or(starts_with(reason, 'START_TEST_RUN_')) AS never_started
             FROM pr_transitions
            WHERE ${QUEUE} AND test_run_id IS NOT NULL
            GROUP BY test_run_id) runs
          WHERE started IS NOT NULL AND ended IS NOT NULL AND ended >= started AND NOT never_started
          ORDER BY ended DESC LIMIT $6`,
        values,
      ),
      pool.query<{ ms: string }>(
        `SELECT EXTRACT(EPOCH FROM (merged - passed)) * 1000 AS ms FROM (
           SELECT submission_id,
                  max(at) FILTER (WHERE to_state = 'tests_passed') AS passed,
                  min(at) FILTER (WHERE to_state = 'merged') AS merged
             FROM pr_transitions
            WHERE ${QUEUE} AND to_state IN ('tests_passed', 'merged')
            GROUP BY submission_id) prs
          WHERE passed IS NOT NULL AND merged IS NOT NULL AND merged >= passed
          ORDER BY merged DESC LIMIT $6`,
        values,
      ),
    ]);
    return {
      testRuns: runs.rows.map((r) => Number(r.ms)),
      landings: landings.rows.map((r) => Number(r.ms)),
    };
  };
}
