/**
 * The day partitions of test_results (migration 0026, docs/adr/0019-result-retention.md): listing
 * them, making them ahead of time, and dropping one without blocking reads or uploads.
 *
 * Dropping is `DETACH PARTITION … CONCURRENTLY`, then `DROP TABLE`, each under a short lock_timeout:
 * the detach takes only SHARE UPDATE EXCLUSIVE on test_results (reads take ACCESS SHARE, inserts ROW
 * EXCLUSIVE: neither waits), waits for the transactions that could still see the partition, and only
 * then locks the partition itself, which no new query reads any more. With the timeout it gives up
 * rather than queue behind a long statement (and make others queue behind it); a detach that gave up
 * halfway leaves the partition "detach pending", which the next call finishes with `FINALIZE`, and a
 * detached table whose DROP gave up is still found here (by name) and dropped next time.
 * CONCURRENTLY cannot run inside a transaction block, so each statement runs on its own on a
 * dedicated connection, which is discarded afterwards (it carries the session's lock_timeout).
 *
 * There is no DEFAULT partition (PostgreSQL refuses CONCURRENTLY with one); the trigger on uploads
 * makes an upload's day partition when it has none, so nothing is refused (see the migration).
 */
import { type Pool } from 'pg';
import { type Queryable } from './db';

export interface ResultPartition {
  readonly name: string;
  /** null: from MINVALUE (the legacy partition of the rows from before 0026). */
  readonly lower: Date | null;
  /** null: a table detached from test_results but not yet dropped. */
  readonly upper: Date | null;
  readonly detachPending: boolean;
}

/** Only tables this module made (or 0026's legacy one) are ever dropped. */
const PARTITION_NAME = /^test_results_(p\d{8}|legacy)$/;

const DAY_MS = 86_400_000;

/** Every partition, oldest first, and the detached tables still to drop (upper null). */
export async function listResultPartitions(db: Queryable): Promise<ResultPartition[]> {
  const { rows } = await db.query<{
    name: string;
    lower: Date | null;
    upper: Date | null;
    detach_pending: boolean;
  }>(
    `SELECT name, lower, upper, detach_pending FROM flaky_result_partitions
     UNION ALL
     SELECT c.relname::text, NULL, NULL, false FROM pg_class c
      WHERE c.relkind = 'r' AND NOT c.relispartition AND c.relname ~ '^test_results_(p[0-9]{8}|legacy)$'
        AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'test_results'::regclass)
     ORDER BY upper NULLS FIRST, lower NULLS FIRST`,
  );
  return rows.map((r) => ({ name: r.name, lower: r.lower, upper: r.upper, detachPending: r.detach_pending }));
}

/** Makes the partitions of the `days` UTC days from `from`'s on; answers the ones it made. */
export async function ensureResultPartitions(db: Queryable, from: Date, days: number): Promise<string[]> {
  const first = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  const made: string[] = [];
  for (let d = 0; d < days; d += 1) {
    const day = new Date(first + d * DAY_MS).toISOString().slice(0, 10);
    const { rows } = await db.query<{ made: string | null }>(
      'SELECT flaky_ensure_result_partition($1::date) AS made',
      [day],
    );
    if (rows[0]?.made) made.push(rows[0].made);
  }
  return made;
}

export type DropOutcome =
  | { readonly kind: 'dropped' }
  /** A lock was not granted within the timeout; the next call goes on from where this one stopped. */
  | { readonly kind: 'gave_up'; readonly step: 'detach' | 'drop'; readonly message: string };

/** Detaches (concurrently, or finishing a pending detach) and drops one partition. */
export async function dropResultPartition(
  pool: Pool,
  partition: ResultPartition,
  lockTimeoutMs: number,
): Promise<DropOutcome> {
  if (!PARTITION_NAME.test(partition.name))
    throw new Error(`refusing to drop ${partition.name}: not a test_results day partition`);
  const table = `"${partition.name}"`;
  const client = await pool.connect();
  let step: 'detach' | 'drop' = 'detach';
  try {
    await client.query(`SET lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
    if (partition.upper !== null)
      await client.query(
        `ALTER TABLE test_results DETACH PARTITION ${table} ${partition.detachPending ? 'FINALIZE' : 'CONCURRENTLY'}`,
      );
    step = 'drop';
    await client.query(`DROP TABLE ${table}`);
    return { kind: 'dropped' };
  } catch (err) {
    if (isLockTimeout(err)) return { kind: 'gave_up', step, message: (err as Error).message };
    throw err;
  } finally {
    // The session carries lock_timeout: never hand it back to the pool.
    client.release(true);
  }
}

function isLockTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // lock_not_available (lock_timeout), query_canceled (a wait cancelled the same way).
  return code === '55P03' || code === '57014';
}
