/**
 * The event-log read behind POST /v1/listMergeQueueTestingResults (docs/api-compat.md): the stretches
 * of testing one queue finished in a time range, newest first, one per PR per attempt. A stretch ends
 * with the PR's transition out of `testing`, which carries its test run (migration 0005).
 *
 * Rules:
 * - The queue is known once it was created (createQueue lists it) or submitted to (event_log_queues);
 *   `null` answers an unknown one, so the route can say 404.
 * - `cycleConclusion` is what the stretch ended in: `passed` (tests passed, or merged straight from
 *   testing), `failed` (failed, or pending failure), `restarted` (back to pending or not ready: a
 *   change ahead, a restart, a bisection), `cancelled`.
 * - `bisection`: `in_bisection` for a bisection run; `entered_bisection` when the stretch ended because
 *   its failed batch was split; absent otherwise.
 * - Bounded by the caller: a range and at most `take` rows from `offset` (the route caps both).
 */
import type { Pool } from 'pg';
import type { PrState } from '../../engine';

export interface TestingResult {
  prNumber: number;
  testRunId: string;
  cycleConclusion: 'passed' | 'failed' | 'restarted' | 'cancelled';
  bisection?: 'in_bisection' | 'entered_bisection';
  endedAt: string;
}

export interface TestingResultsQuery {
  organisationId: string;
  host: string;
  owner: string;
  name: string;
  targetBranch: string;
  since: Date;
  until: Date;
  offset: number;
  take: number;
}

interface Row {
  pr_number: string;
  test_run_id: string;
  to_state: PrState;
  reason: string;
  is_bisection: boolean;
  at: Date;
  total: number;
}

export function conclusionOf(to: PrState): TestingResult['cycleConclusion'] {
  switch (to) {
    case 'tests_passed':
    case 'merged':
      return 'passed';
    case 'failed':
    case 'pending_failure':
      return 'failed';
    case 'pending':
    case 'not_ready':
    case 'testing':
      return 'restarted';
    case 'cancelled':
      return 'cancelled';
  }
}

export async function readTestingResults(
  pool: Pool,
  q: TestingResultsQuery,
): Promise<{ testingResults: TestingResult[]; totalItems: number } | null> {
  const key = [q.organisationId, q.host, q.owner, q.name, q.targetBranch];
  const known = await pool.query(
    `SELECT 1 FROM event_log_queues
      WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5`,
    key,
  );
  if (known.rowCount === 0) return null;
  // pr_transitions_pr_idx covers the queue's prefix; the range and the state filter the rest.
  const { rows } = await pool.query<Row>(
    `SELECT pr_number, test_run_id, to_state, reason, is_bisection, at, count(*) OVER ()::int AS total
       FROM pr_transitions
      WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5
        AND from_state = 'testing' AND test_run_id IS NOT NULL AND at >= $6 AND at <= $7
      ORDER BY at DESC, submission_id, seq
      OFFSET $8 LIMIT $9`,
    [...key, q.since, q.until, q.offset, q.take],
  );
  let totalItems = rows[0]?.total;
  if (totalItems === undefined) {
    // An offset past the end returns no row to carry the count.
    const counted = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pr_transitions
        WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5
          AND from_state = 'testing' AND test_run_id IS NOT NULL AND at >= $6 AND at <= $7`,
      [...key, q.since, q.until],
    );
    totalItems = counted.rows[0]?.n ?? 0;
  }
  return {
    totalItems,
    testingResults: rows.map((r) => {
      const bisection = r.is_bisection
        ? 'in_bisection'
        : r.reason === 'BISECTION_REQUIRED'
          ? 'entered_bisection'
          : undefined;
      return {
        prNumber: Number(r.pr_number),
        testRunId: r.test_run_id,
        cycleConclusion: conclusionOf(r.to_state),
        ...(bisection ? { bisection } : {}),
        endedAt: r.at.toISOString(),
      };
    }),
  };
}
