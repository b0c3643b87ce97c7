/**
 * QueueViewStore: the queue half of the read projection (migrations/0023_read-projection.sql, ADR
 * 0016). One row per queue: the QueueSnapshot its workflow last answered, written by whoever read it
 * (the appendTransitions activity after the queue's own moves, the API after a change it made), read
 * by getQueue and listPullRequests instead of a workflow query.
 *
 * Invariants:
 * - Within one generation (the queue's first run id) a row only moves to a higher revision, so
 *   concurrent writers of snapshots read at different times leave the newest.
 * - A different generation (a queue deleted and created again) replaces the row.
 * - `markDeleted` ends the row for every later write of its generation (the highest revision).
 */
import type { Pool } from 'pg';
import type { QueueKey, QueueSnapshot } from '../../contract';

/** What a row says of its queue. */
export interface ProjectedQueue {
  generation: string;
  revision: number;
  deleted: boolean;
  snapshot: QueueSnapshot;
}

export interface QueueViewStore {
  /** Stores `snapshot` unless the row already holds a newer one of its generation; true when stored. */
  put(key: QueueKey, snapshot: QueueSnapshot): Promise<boolean>;
  /** The queue reads as gone from now on (deleteQueue succeeded). */
  markDeleted(key: QueueKey): Promise<void>;
  get(key: QueueKey): Promise<ProjectedQueue | null>;
}

/** Above any revision a queue reaches (it counts drains). */
const DELETED_REVISION = Number.MAX_SAFE_INTEGER;

const keyParams = (key: QueueKey) => [
  key.organisationId,
  key.repo.host,
  key.repo.owner,
  key.repo.name,
  key.targetBranch,
];

/** A snapshot from a workflow older than the projection has neither; it is stored as revision 0. */
function versionOf(snapshot: QueueSnapshot): { generation: string; revision: number } {
  return { generation: snapshot.generation ?? '', revision: snapshot.revision ?? 0 };
}

export function createQueueViewStore(pool: Pool): QueueViewStore {
  return {
    async put(key, snapshot) {
      const { generation, revision } = versionOf(snapshot);
      const { rowCount } = await pool.query(
        `INSERT INTO queue_views (organisation_id, host, owner, name, target_branch, generation, revision,
           deleted, snapshot)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
         ON CONFLICT (organisation_id, host, owner, name, target_branch) DO UPDATE SET
           generation = EXCLUDED.generation, revision = EXCLUDED.revision, deleted = EXCLUDED.deleted,
           snapshot = EXCLUDED.snapshot, projected_at = now()
         WHERE queue_views.generation <> EXCLUDED.generation OR queue_views.revision < EXCLUDED.revision`,
        [...keyParams(key), generation, revision, snapshot.deleted === true, JSON.stringify(snapshot)],
      );
      return (rowCount ?? 0) > 0;
    },

    async markDeleted(key) {
      await pool.query(
        `UPDATE queue_views SET deleted = true, revision = $6, projected_at = now()
         WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5`,
        [...keyParams(key), DELETED_REVISION],
      );
    },

    async get(key) {
      const { rows } = await pool.query<{
        generation: string;
        revision: string;
        deleted: boolean;
        snapshot: QueueSnapshot;
      }>(
        `SELECT generation, revision, deleted, snapshot FROM queue_views
         WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5`,
        keyParams(key),
      );
      const row = rows[0];
      if (!row) return null;
      return {
        generation: row.generation,
        revision: Number(row.revision),
        deleted: row.deleted,
        snapshot: row.snapshot,
      };
    },
  };
}
