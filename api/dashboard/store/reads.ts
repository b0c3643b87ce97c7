/**
 * The dashboard's own reads of PostgreSQL, each one indexed statement scoped to the signed-in
 * organisation and bounded by a LIMIT or a time range:
 * - a PR's transitions (the event log, pr_transitions_pr_idx): its timeline with reasons;
 * - a queue's recent conclusions (pr_transitions_recent_idx, last 24 hours): who left and why;
 * - which runs in progress are bisection runs (pr_transitions_recent_idx from the oldest run's start);
 * - which of a PR's runs have a stored log (test_run_logs' primary key), so a page links only those;
 * - a test's failures per day (test_day_rollups' primary key), for its failure-history chart;
 * - what a run tested for one of its PRs (test_run_logs' primary key, then pr_transitions_pr_idx on
 *   the run's repository and that PR), so its log opened from the PR's page names that PR.
 * Everything else the dashboard shows comes from the reads the API already uses (the merge-queue
 * service, readQueueMetrics, the flaky store).
 */
import type { Pool } from 'pg';
import type { PrState } from '../../../engine';
import type { QueueAddress } from '../../routes/merge-queue/service';

export const MAX_TIMELINE_ROWS = 200;
export const MAX_RECENT_CONCLUSIONS = 25;
export const HISTORY_DAYS = 30;

export interface LoggedTransition {
  readonly submissionId: string;
  readonly seq: number;
  readonly from: PrState | null;
  readonly to: PrState;
  readonly reason: string;
  readonly testRunId: string | null;
  readonly batch: readonly number[];
  readonly bisection: boolean;
  readonly testBranchSha: string | null;
  readonly at: Date;
}

interface TransitionRow {
  submission_id: string;
  seq: number;
  from_state: PrState | null;
  to_state: PrState;
  reason: string;
  test_run_id: string | null;
  batch: string[];
  is_bisection: boolean;
  test_branch_sha: string | null;
  at: Date;
  pr_number: string;
}

const toTransition = (r: TransitionRow): LoggedTransition => ({
  submissionId: r.submission_id,
  seq: r.seq,
  from: r.from_state,
  to: r.to_state,
  reason: r.reason,
  testRunId: r.test_run_id,
  batch: r.batch.map(Number),
  bisection: r.is_bisection,
  testBranchSha: r.test_branch_sha,
  at: r.at,
});

const COLUMNS = `submission_id, seq, from_state, to_state, reason, test_run_id, batch, is_bisection,
  test_branch_sha, at, pr_number`;
const QUEUE = `organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5`;
const queueParams = (orgId: string, q: QueueAddress) => [
  orgId,
  q.repo.host,
  q.repo.owner,
  q.repo.name,
  q.targetBranch,
];

export interface DashboardReads {
  /** Every transition of PR `pr` in the queue, newest first (all its submissions). */
  prTimeline(orgId: string, queue: QueueAddress, pr: number): Promise<LoggedTransition[]>;
  /** PRs that reached merged, failed or cancelled in the last 24 hours, newest first. */
  recentConclusions(orgId: string, queue: QueueAddress): Promise<(LoggedTransition & { prNumber: number })[]>;
  /** The ids among `runIds` (runs created at or after `since`) that are bisection runs. */
  bisectionRuns(orgId: string, runIds: readonly string[], since: Date): Promise<Set<string>>;
  /** The ids among `runIds` (at most MAX_TIMELINE_ROWS) whose log the organisation keeps. */
  loggedRuns(orgId: string, runIds: readonly string[]): Promise<Set<string>>;
  /**
   * Attempts and failures per UTC day over the last HISTORY_DAYS days, oldest first, zeros filled, of
   * the test whose row is `testPk` (from a record the organisation's own read found).
   */
  testHistory(testPk: string, now: Date): Promise<DayCount[]>;
  /**
   * The PRs run `runId` tested (in the order the run applied them) and whether it was a bisection
   * run, as the event log of PR `pr` records them; null when the organisation has no log of that run
   * or PR `pr` was not in it.
   */
  runOfPullRequest(orgId: string, runId: string, pr: number): Promise<RunOfPullRequest | null>;
}

export interface RunOfPullRequest {
  readonly batch: readonly number[];
  readonly bisection: boolean;
}

export interface DayCount {
  readonly day: string;
  readonly attempts: number;
  readonly failures: number;
}

export function createDashboardReads(pool: Pool): DashboardReads {
  return {
    async prTimeline(orgId, queue, pr) {
      const { rows } = await pool.query<TransitionRow>(
        `SELECT ${COLUMNS} FROM pr_transitions WHERE ${QUEUE} AND pr_number = $6
          ORDER BY at DESC, seq DESC LIMIT ${MAX_TIMELINE_ROWS}`,
        [...queueParams(orgId, queue), pr],
      );
      return rows.map(toTransition);
    },

    async recentConclusions(orgId, queue) {
      const { rows } = await pool.query<TransitionRow>(
        `SELECT ${COLUMNS} FROM pr_transitions WHERE ${QUEUE}
            AND at >= now() - interval '24 hours' AND to_state IN ('merged', 'failed', 'cancelled')
          ORDER BY at DESC, seq DESC LIMIT ${MAX_RECENT_CONCLUSIONS}`,
        queueParams(orgId, queue),
      );
      return rows.map((r) => ({ ...toTransition(r), prNumber: Number(r.pr_number) }));
    },

    async bisectionRuns(orgId, runIds, since) {
      if (runIds.length === 0) return new Set();
      const { rows } = await pool.query<{ test_run_id: string }>(
        `SELECT DISTINCT test_run_id FROM pr_transitions
          WHERE organisation_id = $1 AND at >= $2 AND test_run_id = ANY($3::text[]) AND is_bisection`,
        [orgId, since, runIds],
      );
      return new Set(rows.map((r) => r.test_run_id));
    },

    async runOfPullRequest(orgId, runId, pr) {
      const { rows } = await pool.query<{ batch: string[]; is_bisection: boolean }>(
        `SELECT t.batch, t.is_bisection FROM test_run_logs l
           JOIN pr_transitions t ON t.organisation_id = l.organisation_id AND t.host = l.host
            AND t.owner = l.owner AND t.name = l.name AND t.pr_number = $3 AND t.test_run_id = l.test_run_id
          WHERE l.organisation_id = $1 AND l.test_run_id = $2
          ORDER BY t.at DESC LIMIT 1`,
        [orgId, runId, pr],
      );
      const row = rows[0];
      return row ? { batch: row.batch.map(Number), bisection: row.is_bisection } : null;
    },

    async loggedRuns(orgId, runIds) {
      if (runIds.length === 0) return new Set();
      const { rows } = await pool.query<{ test_run_id: string }>(
        `SELECT test_run_id FROM test_run_logs WHERE organisation_id = $1 AND test_run_id = ANY($2::text[])`,
        [orgId, runIds.slice(0, MAX_TIMELINE_ROWS)],
      );
      return new Set(rows.map((r) => r.test_run_id));
    },

    async testHistory(testPk, now) {
      const { rows } = await pool.query<{ day: string; attempts: number; failures: number }>(
        `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                coalesce(r.attempts + r.infra_attempts, 0)::int AS attempts,
                coalesce(r.failures + r.infra_failures, 0)::int AS failures
           FROM generate_series((($2::timestamptz AT TIME ZONE 'UTC')::date - ${HISTORY_DAYS - 1})::timestamp,
                                ($2::timestamptz AT TIME ZONE 'UTC')::date::timestamp, interval '1 day') AS d(day)
           LEFT JOIN test_day_rollups r
             ON r.day = d.day::date
            AND r.test_pk = $1
          ORDER BY d.day`,
        [testPk, now],
      );
      return rows;
    },
  };
}
