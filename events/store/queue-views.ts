/**
 * QueueViewStore: the queue half of the read projection (migrations 0023 and 0024, ADR 0016). Per
 * queue, one `queue_views` row (version, settings, counts) and one `queue_view_entries` row per
 * enqueued PR, ordered by `rank`; getQueue and listPullRequests read them instead of a workflow query.
 * Two ways in: `apply`, a delta the queue workflow computed against the view it last had stored (sent
 * with each event-log append, contract/queue-view-delta.ts), and `put`, a whole snapshot (the API after
 * a change it made, and the fallback when a delta does not fit). Both write only the rows that changed.
 *
 * Invariants:
 * - Every write of a queue takes its `queue_views` row lock first, so writers of one queue apply one
 *   after the other, and a write is all or nothing (one transaction).
 * - Within one generation (the queue's first run id) the view only moves to a higher revision: a
 *   delta or snapshot not newer than the stored view changes nothing (a duplicate, a late retry, an
 *   older run's append landing after its successor's), so nothing removed comes back.
 * - A different generation (a queue deleted and created again) replaces the view.
 * - A delta applies only on the view it was computed against. It is refused (`diverged`, nothing
 *   written) when the stored view is older than its base, or when another writer changed a row since
 *   the base that the delta does not name (that row may be stale now), or when the result would not
 *   hold the count the sender has: the caller then stores a whole snapshot.
 * - `markDeleted` ends the view for every later write of its generation (the highest revision).
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import {
  headerOf,
  keptInPlace,
  placementsOf,
  versionOfSnapshot,
  type QueuedPullRequest,
  type QueueKey,
  type QueueSettingsSnapshot,
  type QueueSnapshot,
  type QueueViewDelta,
  type QueueViewPlacement,
} from '../../contract';
import { inTransaction } from '../../stores/transaction';

/** What a row says of its queue. */
export interface ProjectedQueue {
  generation: string;
  revision: number;
  deleted: boolean;
  snapshot: QueueSnapshot;
}

/**
 * What became of a delta: `stored`; `stale` (the view already held this revision or a newer one);
 * `diverged` (it does not apply on the stored view: store a whole snapshot instead).
 */
export type ViewWrite = 'stored' | 'stale' | 'diverged';

export interface QueueViewStore {
  /** Stores `snapshot` unless the row already holds a newer one of its generation; true when stored. */
  put(key: QueueKey, snapshot: QueueSnapshot): Promise<boolean>;
  /** Applies a delta from the queue workflow (see ViewWrite). */
  apply(key: QueueKey, delta: QueueViewDelta): Promise<ViewWrite>;
  /** The queue reads as gone from now on (deleteQueue succeeded). */
  markDeleted(key: QueueKey): Promise<void>;
  get(key: QueueKey): Promise<ProjectedQueue | null>;
  /** The view's version alone (no entries read): whether the projection holds the queue. */
  version(key: QueueKey): Promise<Omit<ProjectedQueue, 'snapshot'> | null>;
}

/** Above any revision a queue reaches (it counts drains). */
const DELETED_REVISION = Number.MAX_SAFE_INTEGER;
/** The gap between neighbouring ranks when a view is numbered afresh. */
const SPACING = 1_048_576;
/** Below this gap a rank between two neighbours is not told apart safely: the view is renumbered. */
const MIN_GAP = 1e-3;

const KEY = 'organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5';

const keyParams = (key: QueueKey) => [
  key.organisationId,
  key.repo.host,
  key.repo.owner,
  key.repo.name,
  key.targetBranch,
];

/** JSON with keys sorted: jsonb does not keep key order, so digests are taken of this form. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function entryDigest(entry: QueuedPullRequest): string {
  return createHash('sha1').update(canonical(entry)).digest('base64');
}

/** A delta that does not apply: everything the transaction wrote is rolled back. */
class Diverged extends Error {}

interface StoredRow {
  pr: number;
  rank: number;
  revision: number;
  digest: string;
}

interface Header {
  generation: string;
  revision: number;
  deleted: boolean;
  settings: QueueSettingsSnapshot;
  inQueue: number;
  testRunsInProgress?: string[];
}

/** Locks the queue's row, making a placeholder (revision -1: no view) when it has none. */
async function lockQueue(db: PoolClient, key: QueueKey, incoming: Header) {
  const locked = () =>
    db.query<{ generation: string; revision: string }>(
      `SELECT generation, revision FROM queue_views WHERE ${KEY} FOR UPDATE`,
      keyParams(key),
    );
  let { rows } = await locked();
  if (rows.length === 0) {
    await db.query(
      `INSERT INTO queue_views (organisation_id, host, owner, name, target_branch, generation, revision,
         deleted, settings)
       VALUES ($1, $2, $3, $4, $5, $6, -1, false, $7::jsonb)
       ON CONFLICT (organisation_id, host, owner, name, target_branch) DO NOTHING`,
      [...keyParams(key), incoming.generation, JSON.stringify(incoming.settings)],
    );
    ({ rows } = await locked());
  }
  const row = rows[0]!;
  return { generation: row.generation, revision: Number(row.revision) };
}

async function storedRows(db: PoolClient, key: QueueKey): Promise<StoredRow[]> {
  const { rows } = await db.query<{ pr: string; rank: number; revision: string; digest: string }>(
    `SELECT pr_number AS pr, rank, revision, digest FROM queue_view_entries WHERE ${KEY} ORDER BY rank`,
    keyParams(key),
  );
  return rows.map((r) => ({
    pr: Number(r.pr),
    rank: r.rank,
    revision: Number(r.revision),
    digest: r.digest,
  }));
}

/**
 * Writes `place` and `removed` over `stored` (the queue's rows in order) and the header, at `header`'s
 * revision: placed rows go right after the PR they follow, ranked between it and its next neighbour.
 */
async function write(
  db: PoolClient,
  key: QueueKey,
  stored: readonly StoredRow[],
  place: readonly QueueViewPlacement[],
  removed: readonly number[],
  header: Header,
  count: number,
): Promise<void> {
  const leaving = new Set([...removed, ...place.map((p) => p.entry.pr)]);
  const line = stored.filter((r) => !leaving.has(r.pr)).map((r) => ({ pr: r.pr, rank: r.rank }));
  let renumber = false;
  const placed = new Set<number>();
  let last: { pr: number; at: number } | null = null;
  for (const { entry, after } of place) {
    // Placements come in view order, so most follow the one placed just before.
    const i: number =
      after === null ? 0 : last?.pr === after ? last.at + 1 : line.findIndex((r) => r.pr === after) + 1;
    if (i === 0 && after !== null) throw new Diverged(`PR ${after} is not in the stored view`);
    const before = line[i - 1];
    const next = line[i];
    let rank: number;
    if (!before) rank = next ? next.rank - SPACING : SPACING;
    else if (!next) rank = before.rank + SPACING;
    else {
      rank = before.rank + (next.rank - before.rank) / 2;
      if (next.rank - before.rank < MIN_GAP) renumber = true;
    }
    line.splice(i, 0, { pr: entry.pr, rank });
    placed.add(entry.pr);
    last = { pr: entry.pr, at: i };
  }
  if (line.length !== count) throw new Diverged(`the view would hold ${line.length} entries, not ${count}`);
  const storedRank = new Map(stored.map((r) => [r.pr, r.rank]));
  const moved: { pr: number; rank: number }[] = [];
  if (renumber)
    line.forEach((r, i) => {
      r.rank = (i + 1) * SPACING;
      if (!placed.has(r.pr) && storedRank.get(r.pr) !== r.rank) moved.push(r);
    });
  const rankOf = new Map(line.map((r) => [r.pr, r.rank]));

  // One statement (one round trip) for every write; the three sets of rows are disjoint.
  const gone = removed.filter((pr) => storedRank.has(pr));
  const rows = place.map(({ entry }) => ({
    pr: entry.pr,
    rank: rankOf.get(entry.pr)!,
    digest: entryDigest(entry),
    entry,
  }));
  const E_KEY = '(e.organisation_id, e.host, e.owner, e.name, e.target_branch) = ($1, $2, $3, $4, $5)';
  await db.query(
    `WITH gone AS (
       DELETE FROM queue_view_entries e WHERE ${E_KEY} AND e.pr_number = ANY($12::bigint[])
     ), placed AS (
       INSERT INTO queue_view_entries (organisation_id, host, owner, name, target_branch, pr_number, rank,
         revision, digest, entry)
       SELECT $1, $2, $3, $4, $5, x.pr, x.rank, $7, x.digest, x.entry
       FROM jsonb_to_recordset($13::jsonb) AS x(pr bigint, rank double precision, digest text, entry jsonb)
       ON CONFLICT (organisation_id, host, owner, name, target_branch, pr_number) DO UPDATE SET
         rank = EXCLUDED.rank, revision = EXCLUDED.revision, digest = EXCLUDED.digest, entry = EXCLUDED.entry
     ), moved AS (
       UPDATE queue_view_entries e SET rank = x.rank
       FROM jsonb_to_recordset($14::jsonb) AS x(pr bigint, rank double precision)
       WHERE ${E_KEY} AND e.pr_number = x.pr
     )
     UPDATE queue_views SET generation = $6, revision = $7, deleted = $8, settings = $9::jsonb,
       in_queue = $10, test_runs_in_progress = $11::jsonb, projected_at = now()
     WHERE ${KEY}`,
    [
      ...keyParams(key),
      header.generation,
      header.revision,
      header.deleted,
      JSON.stringify(header.settings),
      header.inQueue,
      header.testRunsInProgress ? JSON.stringify(header.testRunsInProgress) : null,
      gone,
      JSON.stringify(rows),
      JSON.stringify(moved),
    ],
  );
}

/** The header a delta or snapshot carries, with its version. */
function headerFrom(version: { generation: string; revision: number }, snapshot: QueueSnapshot): Header {
  return { ...version, ...headerOf(snapshot) };
}

/** Stores a whole view, writing only the rows that differ from the stored ones. */
async function putWhole(
  db: PoolClient,
  key: QueueKey,
  header: Header,
  entries: readonly QueuedPullRequest[],
): Promise<boolean> {
  const current = await lockQueue(db, key, header);
  const sameGeneration = current.revision >= 0 && current.generation === header.generation;
  if (sameGeneration && header.revision <= current.revision) return false;
  if (!sameGeneration) await db.query(`DELETE FROM queue_view_entries WHERE ${KEY}`, keyParams(key));
  const stored = sameGeneration ? await storedRows(db, key) : [];
  const digests = new Map(stored.map((r) => [r.pr, r.digest]));
  const order = entries.map((e) => e.pr);
  const fresh = new Map(entries.map((e) => [e.pr, entryDigest(e)]));
  const kept = keptInPlace(
    stored.map((r) => r.pr),
    order,
    (pr) => digests.get(pr) === fresh.get(pr),
  );
  const inView = new Set(order);
  await write(
    db,
    key,
    stored,
    placementsOf(entries, kept),
    stored.filter((r) => !inView.has(r.pr)).map((r) => r.pr),
    header,
    entries.length,
  );
  return true;
}

export function createQueueViewStore(pool: Pool): QueueViewStore {
  return {
    put(key, snapshot) {
      const header = headerFrom(versionOfSnapshot(snapshot), snapshot);
      return inTransaction(pool, (db) => putWhole(db, key, header, snapshot.enqueued), {
        retryConflicts: true,
      });
    },

    async apply(key, delta) {
      const header: Header = { generation: delta.generation, revision: delta.revision, ...delta.header };
      if (delta.base === null) {
        const stored = await inTransaction(
          pool,
          (db) =>
            putWhole(
              db,
              key,
              header,
              delta.place.map((p) => p.entry),
            ),
          { retryConflicts: true },
        );
        return stored ? 'stored' : 'stale';
      }
      const base = delta.base;
      try {
        return await inTransaction(
          pool,
          async (db): Promise<ViewWrite> => {
            const current = await lockQueue(db, key, header);
            if (current.revision < 0 || current.generation !== delta.generation)
              throw new Diverged('no view of this generation is stored');
            if (delta.revision <= current.revision) return 'stale';
            if (current.revision < base) throw new Diverged(`the stored view is older than ${base}`);
            const stored = await storedRows(db, key);
            const named = new Set([...delta.removed, ...delta.place.map((p) => p.entry.pr)]);
            // Written by another writer since the base and not named: what it holds may be stale now.
            const unnamed = stored.find((r) => r.revision > base && !named.has(r.pr));
            if (unnamed) throw new Diverged(`PR ${unnamed.pr} changed since ${base}`);
            await write(db, key, stored, delta.place, delta.removed, header, delta.count);
            return 'stored';
          },
          { retryConflicts: true },
        );
      } catch (err) {
        if (err instanceof Diverged) return 'diverged';
        throw err;
      }
    },

    async markDeleted(key) {
      await pool.query(
        `UPDATE queue_views SET deleted = true, revision = $6, projected_at = now() WHERE ${KEY}`,
        [...keyParams(key), DELETED_REVISION],
      );
    },

    async get(key) {
      const { rows } = await pool.query<{
        generation: string;
        revision: string;
        deleted: boolean;
        settings: QueueSettingsSnapshot;
        in_queue: number;
        test_runs_in_progress: string[] | null;
        enqueued: QueuedPullRequest[];
      }>(
        `SELECT v.generation, v.revision, v.deleted, v.settings, v.in_queue, v.test_runs_in_progress,
           coalesce((SELECT json_agg(e.entry ORDER BY e.rank) FROM queue_view_entries e
             WHERE (e.organisation_id, e.host, e.owner, e.name, e.target_branch)
                 = (v.organisation_id, v.host, v.owner, v.name, v.target_branch)), '[]') AS enqueued
         FROM queue_views v WHERE ${KEY} AND revision >= 0`,
        keyParams(key),
      );
      const row = rows[0];
      if (!row) return null;
      const revision = Number(row.revision);
      const snapshot: QueueSnapshot = {
        settings: row.settings,
        enqueued: row.enqueued,
        inQueue: row.in_queue,
        ...(row.test_runs_in_progress ? { testRunsInProgress: row.test_runs_in_progress } : {}),
        generation: row.generation,
        revision,
        deleted: row.deleted,
      };
      return { generation: row.generation, revision, deleted: row.deleted, snapshot };
    },

    async version(key) {
      const { rows } = await pool.query<{ generation: string; revision: string; deleted: boolean }>(
        `SELECT generation, revision, deleted FROM queue_views WHERE ${KEY} AND revision >= 0`,
        keyParams(key),
      );
      const row = rows[0];
      return row
        ? { generation: row.generation, revision: Number(row.revision), deleted: row.deleted }
        : null;
    },
  };
}
