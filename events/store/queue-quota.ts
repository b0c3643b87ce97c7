/**
 * How many merge queues an organisation may have (RAILYARD_MAX_QUEUES_PER_ORGANISATION). Every queue
 * is a long-running workflow on the shared worker, so the count is bounded per organisation.
 *
 * The count is the organisation's rows in event_log_queues, the listing the metrics endpoint reads
 * (migrations/0005_event-log.sql): createQueue lists its queue there, and deleteQueue now takes it out.
 *
 * Invariants:
 * - `reserve` lists the queue before it is created, counting and inserting under a per-organisation
 *   advisory lock in one transaction, so two creations racing at the limit cannot both pass it.
 * - A queue already listed (it exists, or was listed by a PR's transitions) never counts twice and is
 *   never refused: re-creating it answers whatever createQueue answers (409 for one that exists).
 * - `unlist` is idempotent. A transition recorded after a queue was deleted lists it again (the event
 *   log is written late when PostgreSQL was away); it then counts until it is deleted once more.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../../stores/transaction';

export const DEFAULT_MAX_QUEUES_PER_ORGANISATION = 1_000;

export interface QueueRef {
  host: string;
  owner: string;
  name: string;
  targetBranch: string;
}

export type QueueReservation =
  /** Newly listed: unlist it if the queue is not created after all. */
  | { kind: 'reserved' }
  /** Listed already; creating it adds nothing to the count. */
  | { kind: 'listed' }
  | { kind: 'limit_reached'; limit: number };

export interface QueueQuota {
  readonly limit: number;
  reserve(organisationId: string, queue: QueueRef): Promise<QueueReservation>;
  unlist(organisationId: string, queue: QueueRef): Promise<void>;
}

const KEY = 'organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND target_branch = $5';
const keyOf = (organisationId: string, q: QueueRef) => [
  organisationId,
  q.host,
  q.owner,
  q.name,
  q.targetBranch,
];

export function createQueueQuota(pool: Pool, opts: { maxPerOrganisation?: number } = {}): QueueQuota {
  const limit = opts.maxPerOrganisation ?? DEFAULT_MAX_QUEUES_PER_ORGANISATION;
  return {
    limit,

    async reserve(organisationId, queue) {
      return inTransaction(pool, async (client): Promise<QueueReservation> => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`queue-quota/${organisationId}`]);
        const listed = await client.query(
          `SELECT 1 FROM event_log_queues WHERE ${KEY}`,
          keyOf(organisationId, queue),
        );
        if (listed.rowCount === 1) return { kind: 'listed' };
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM event_log_queues WHERE organisation_id = $1',
          [organisationId],
        );
        if ((count.rows[0]?.n ?? 0) >= limit) return { kind: 'limit_reached', limit };
        // ON CONFLICT: a PR's transitions may list it between the read and here (they take no lock).
        const inserted = await client.query(
          `INSERT INTO event_log_queues (organisation_id, host, owner, name, target_branch)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          keyOf(organisationId, queue),
        );
        return inserted.rowCount === 1 ? { kind: 'reserved' } : { kind: 'listed' };
      });
    },

    async unlist(organisationId, queue) {
      await pool.query(`DELETE FROM event_log_queues WHERE ${KEY}`, keyOf(organisationId, queue));
    },
  };
}
