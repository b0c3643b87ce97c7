/**
 * The landings table (migrations/0030_landings.sql): each landing's proof, written with its `merged`
 * transition, and what the landing check (activities/landing-check.ts) found when it compared the
 * trees again on the host.
 *
 * Invariants: a landing is one row per merged transition (submission_id, seq), written idempotently
 * (ON CONFLICT DO NOTHING) in the event log's transaction; `changed` is final (a branch rewritten is
 * not unwritten), so a landing once changed is not checked again; only the landings of the last day
 * are checked and counted; rows older than 30 days are pruned by the check.
 */
import type { Pool, PoolClient } from 'pg';
import type { RepositoryKey } from '../../contract';
import type { TransitionEvent } from '../types';

/** How far back the check and the gauge look. */
export const LANDING_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a landing is kept (for a person's SELECT), then pruned by the landing check. */
export const LANDING_RETENTION_MS = 30 * LANDING_WINDOW_MS;

export interface Landing {
  submissionId: string;
  seq: number;
  organisationId: string;
  repo: RepositoryKey;
  targetBranch: string;
  prNumber: number;
  landedSha: string;
  testedTree: string | null;
  landedTree: string | null;
  rebased: boolean;
}

export type LandingCheck = { state: 'held' } | { state: 'changed'; detail: string };

/** Writes the landing of every merged transition that carries a proof (detail kind `landing`). */
export async function recordLandings(db: PoolClient, events: readonly TransitionEvent[]): Promise<void> {
  const rows = events.flatMap((e) =>
    e.to === 'merged' && e.detail?.kind === 'landing'
      ? [
          {
            submission_id: e.submissionId,
            seq: e.seq,
            organisation_id: e.organisationId,
            host: e.repo.host,
            owner: e.repo.owner,
            name: e.repo.name,
            target_branch: e.targetBranch,
            pr_number: e.prNumber,
            landed_sha: e.detail.sha,
            tested_tree: e.detail.testedTree,
            landed_tree: e.detail.landedTree,
            rebased: e.detail.rebased ?? false,
            at: new Date(e.at).toISOString(),
          },
        ]
      : [],
  );
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO landings (submission_id, seq, organisation_id, host, owner, name, target_branch, pr_number,
       landed_sha, tested_tree, landed_tree, rebased, at)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(submission_id text, seq int, organisation_id uuid,
       host text, owner text, name text, target_branch text, pr_number bigint, landed_sha text,
       tested_tree text, landed_tree text, rebased boolean, at timestamptz)
     ORDER BY submission_id, seq
     ON CONFLICT (submission_id, seq) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** The landings of the window not found changed yet, newest first, at most `limit`. */
export async function landingsToCheck(pool: Pool, now: Date, limit: number): Promise<Landing[]> {
  const { rows } = await pool.query<{
    submission_id: string;
    seq: number;
    organisation_id: string;
    host: string;
    owner: string;
    name: string;
    target_branch: string;
    pr_number: string;
    landed_sha: string;
    tested_tree: string | null;
    landed_tree: string | null;
    rebased: boolean;
  }>(
    `SELECT submission_id, seq, organisation_id, host, owner, name, target_branch, pr_number, landed_sha,
       tested_tree, landed_tree, rebased
     FROM landings WHERE at >= $1 AND check_state <> 'changed' ORDER BY at DESC LIMIT $2`,
    [new Date(now.getTime() - LANDING_WINDOW_MS), limit],
  );
  return rows.map((r) => ({
    submissionId: r.submission_id,
    seq: r.seq,
    organisationId: r.organisation_id,
    repo: { host: r.host, owner: r.owner, name: r.name },
    targetBranch: r.target_branch,
    prNumber: Number(r.pr_number),
    landedSha: r.landed_sha,
    testedTree: r.tested_tree,
    landedTree: r.landed_tree,
    rebased: r.rebased,
  }));
}

export async function recordLandingCheck(
  pool: Pool,
  landing: Landing,
  check: LandingCheck,
  now: Date,
): Promise<void> {
  await pool.query(
    `UPDATE landings SET check_state = $3, check_detail = $4, checked_at = $5
     WHERE submission_id = $1 AND seq = $2 AND check_state <> 'changed'`,
    [landing.submissionId, landing.seq, check.state, check.state === 'changed' ? check.detail : null, now],
  );
}

/** Landings of the window found changed (the `railyard_landings_changed` gauge). */
export async function changedLandings(pool: Pool, now: Date): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM landings WHERE at >= $1 AND check_state = 'changed'`,
    [new Date(now.getTime() - LANDING_WINDOW_MS)],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Deletes landings older than LANDING_RETENTION_MS, at most `limit` a call; answers how many. */
export async function pruneLandings(pool: Pool, now: Date, limit = 10_000): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM landings WHERE ctid IN (SELECT ctid FROM landings WHERE at < $1 LIMIT $2)`,
    [new Date(now.getTime() - LANDING_RETENTION_MS), limit],
  );
  return rowCount ?? 0;
}
