/**
 * The live processes of each kind (migration 0027): a process beats (upserts its row, with the
 * database's clock) and learns in the same statement how many processes of its kind beat within
 * the staleness window, itself included. Rows of processes gone for an hour are removed by any beat.
 */
import type { Pool } from 'pg';
import type { ReplicaStore } from '../platform/replica-census';

export function createReplicaStore(pool: Pool): ReplicaStore {
  return {
    async beat(kind, id, staleMs) {
      // The statement's CTEs see the snapshot from before the upsert: count the others, add one.
      const { rows } = await pool.query<{ others: number }>(
        `WITH up AS (
           INSERT INTO process_replicas (kind, id, last_seen) VALUES ($1, $2, now())
           ON CONFLICT (kind, id) DO UPDATE SET last_seen = now()
         ), gone AS (
           DELETE FROM process_replicas WHERE kind = $1 AND id <> $2 AND last_seen < now() - interval '1 hour'
         )
         SELECT count(*)::int AS others FROM process_replicas
          WHERE kind = $1 AND id <> $2 AND last_seen >= now() - make_interval(secs => $3::float8 / 1000)`,
        [kind, id, staleMs],
      );
      return (rows[0]?.others ?? 0) + 1;
    },
    async leave(kind, id) {
      await pool.query('DELETE FROM process_replicas WHERE kind = $1 AND id = $2', [kind, id]);
    },
  };
}
