/**
 * The event-log reads behind GET /v1/getMergeQueueMetrics: the queues of an organisation (or of one
 * of its repositories), the current state counts, and the full histories of the submissions that
 * moved in the window. Three indexed queries; the arithmetic is queue-metrics.ts.
 *
 * A repository is known once one of its queues was created (createQueue lists it) or any PR was
 * submitted to one (event_log_queues); `null` answers an unknown one, so the caller can say 404.
 */
import type { Pool } from 'pg';
import type { PrState } from '../../engine';
import {
  computeQueueMetrics,
  WINDOW_MS,
  type CurrentCount,
  type LoggedTransition,
  type QueueMetrics,
  type QueueRef,
} from '../queue-metrics';

export interface RepositoryFilter {
  host: string;
  owner: string;
  name: string;
}

interface QueueRow {
  host: string;
  owner: string;
  name: string;
  target_branch: string;
}

const SCOPE = `organisation_id = $1 AND ($2::text IS NULL OR (host = $2 AND owner = $3 AND name = $4))`;

/**
 * Only queues of repositories the organisation owns (migration 0008): a queue an organisation made on
 * a repository found to be another's stays out of its metrics. The other reads need no such filter,
 * since computeQueueMetrics ignores rows of queues not listed.
 */
const OWNED = `EXISTS (SELECT 1 FROM repository_owners o WHERE o.organisation_id = q.organisation_id
  AND lower(o.host) = lower(q.host) AND lower(o.owner) = lower(q.owner) AND lower(o.name) = lower(q.name))`;

const queueOf = (r: QueueRow): QueueRef => ({
  host: r.host,
  owner: r.owner,
  name: r.name,
  targetBranch: r.target_branch,
});

export async function readQueueMetrics(
  pool: Pool,
  organisationId: string,
  repository: RepositoryFilter | null,
  now: number,
): Promise<QueueMetrics[] | null> {
  const scope = [
    organisationId,
    repository?.host ?? null,
    repository?.owner ?? null,
    repository?.name ?? null,
  ];
  const queues = await pool.query<QueueRow>(
    `SELECT host, owner, name, target_branch FROM event_log_queues q WHERE ${SCOPE} AND ${OWNED}
      ORDER BY host, owner, name, target_branch`,
    scope,
  );
  if (repository !== null && queues.rows.length === 0) return null;
  if (queues.rows.length === 0) return [];

  // The terminal states are spelled out as in pr_submissions_active_idx's predicate (migration 0005),
  // which the planner can only use for a query whose condition implies it.
  const current = await pool.query<QueueRow & { state: PrState; is_bisection: boolean; count: number }>(
    `SELECT host, owner, name, target_branch, state, is_bisection, count(*)::int AS count
       FROM pr_submissions WHERE ${SCOPE} AND state NOT IN ('merged', 'failed', 'cancelled')
      GROUP BY host, owner, name, target_branch, state, is_bisection`,
    scope,
  );
  const histories = await pool.query<
    QueueRow & {
      submission_id: string;
      seq: number;
      from_state: PrState | null;
      to_state: PrState;
      is_bisection: boolean;
      at_ms: string;
    }
  >(
    `SELECT submission_id, seq, host, owner, name, target_branch, from_state, to_state, is_bisection,
            (extract(epoch FROM at) * 1000)::bigint AS at_ms
       FROM pr_transitions
      WHERE submission_id IN (
        SELECT DISTINCT submission_id FROM pr_transitions
         WHERE ${SCOPE} AND at >= to_timestamp($5::double precision / 1000)
           AND at <= to_timestamp($6::double precision / 1000))
      ORDER BY submission_id, seq`,
    // A second of slack either side: computeQueueMetrics makes the exact cut in milliseconds.
    [...scope, now - WINDOW_MS - 1000, now + 1000],
  );

  return computeQueueMetrics({
    queues: queues.rows.map(queueOf),
    current: current.rows.map((r): CurrentCount => ({
      ...queueOf(r),
      state: r.state,
      isBisection: r.is_bisection,
      count: r.count,
    })),
    histories: histories.rows.map((r): LoggedTransition => ({
      ...queueOf(r),
      submissionId: r.submission_id,
      seq: r.seq,
      from: r.from_state,
      to: r.to_state,
      isBisection: r.is_bisection,
      at: Number(r.at_ms),
    })),
    now,
  });
}
