/**
 * Writes one batch of transitions to the event log (migrations/0005_event-log.sql), inside the
 * caller's transaction, in set-based statements whatever the batch size (the landings of merged
 * transitions too, landings.ts).
 *
 * Invariants:
 * - pr_transitions: INSERT … ON CONFLICT (submission_id, seq) DO NOTHING, so the same batch twice
 *   leaves the same rows.
 * - pr_submissions: per submission, only the transition with the highest seq is kept; a batch older
 *   than what is stored (a retried drain landing after a newer one) changes nothing.
 * - Rows are written in key order, so two concurrent batches that touch the same keys lock them in
 *   the same order and cannot deadlock.
 */
import type { Pool, PoolClient } from 'pg';
import type { RepositoryKey } from '../../contract';
import type { TransitionEvent } from '../types';
import { recordLandings } from './landings';

const asRow = (e: TransitionEvent) => ({
  submission_id: e.submissionId,
  seq: e.seq,
  organisation_id: e.organisationId,
  host: e.repo.host,
  owner: e.repo.owner,
  name: e.repo.name,
  target_branch: e.targetBranch,
  pr_number: e.prNumber,
  from_state: e.from,
  to_state: e.to,
  reason: e.reason,
  test_run_id: e.testRunId,
  batch: e.batch,
  is_bisection: e.isBisection,
  test_branch: e.testBranch,
  test_branch_sha: e.testBranchSha,
  at: new Date(e.at).toISOString(),
  title: e.title,
  author: e.author,
  head_sha: e.headSha,
});

const RECORDS = `jsonb_to_recordset($1::jsonb) AS e(submission_id text, seq int, organisation_id uuid,
  host text, owner text, name text, target_branch text, pr_number bigint, from_state text, to_state text,
  reason text, test_run_id text, batch bigint[], is_bisection boolean, test_branch text,
  test_branch_sha text, at timestamptz, title text, author text, head_sha text)`;

/** The latest transition per submission within the batch (an upsert may touch a row only once). */
function latestPerSubmission(events: readonly TransitionEvent[]): TransitionEvent[] {
  const latest = new Map<string, TransitionEvent>();
  for (const e of events) {
    const seen = latest.get(e.submissionId);
    if (!seen || seen.seq < e.seq) latest.set(e.submissionId, e);
  }
  return [...latest.values()];
}

const byKey = (a: TransitionEvent, b: TransitionEvent) =>
  a.submissionId < b.submissionId ? -1 : a.submissionId > b.submissionId ? 1 : a.seq - b.seq;

/** Appends the batch; answers how many transitions were new. */
export async function appendToLog(db: PoolClient, events: readonly TransitionEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const sorted = [...events].sort(byKey);
  const inserted = await db.query(
    `INSERT INTO pr_transitions (submission_id, seq, organisation_id, host, owner, name, target_branch,
       pr_number, from_state, to_state, reason, test_run_id, batch, is_bisection, test_branch,
       test_branch_sha, at, title, author, head_sha)
     SELECT e.submission_id, e.seq, e.organisation_id, e.host, e.owner, e.name, e.target_branch,
       e.pr_number, e.from_state, e.to_state, e.reason, e.test_run_id, COALESCE(e.batch, '{}'),
       e.is_bisection, e.test_branch, e.test_branch_sha, e.at, e.title, e.author, e.head_sha
     FROM ${RECORDS}
     ON CONFLICT (submission_id, seq) DO NOTHING`,
    [JSON.stringify(sorted.map(asRow))],
  );
  await db.query(
    `INSERT INTO pr_submissions (submission_id, organisation_id, host, owner, name, target_branch,
       pr_number, state, is_bisection, seq, state_changed_at)
     SELECT e.submission_id, e.organisation_id, e.host, e.owner, e.name, e.target_branch, e.pr_number,
       e.to_state, e.is_bisection, e.seq, e.at
     FROM ${RECORDS}
     ON CONFLICT (submission_id) DO UPDATE SET
       state = EXCLUDED.state, is_bisection = EXCLUDED.is_bisection, seq = EXCLUDED.seq,
       state_changed_at = EXCLUDED.state_changed_at
     WHERE pr_submissions.seq < EXCLUDED.seq`,
    [JSON.stringify(latestPerSubmission(sorted).map(asRow))],
  );
  await db.query(
    `INSERT INTO event_log_queues (organisation_id, host, owner, name, target_branch)
     SELECT DISTINCT e.organisation_id, e.host, e.owner, e.name, e.target_branch FROM ${RECORDS}
     ORDER BY 1, 2, 3, 4, 5
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(sorted.map(asRow))],
  );
  // Each landing's proof, for the landing check (landings.ts).
  await recordLandings(db, sorted);
  return inserted.rowCount ?? 0;
}

/**
 * Lists a queue in event_log_queues before any PR reaches it (createQueue), so the metrics endpoint
 * knows it at once and reports zeros. Idempotent.
 */
export async function registerQueue(
  db: Pool | PoolClient,
  organisationId: string,
  repo: RepositoryKey,
  targetBranch: string,
): Promise<void> {
  await db.query(
    `INSERT INTO event_log_queues (organisation_id, host, owner, name, target_branch)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [organisationId, repo.host, repo.owner, repo.name, targetBranch],
  );
}
