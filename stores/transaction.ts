/**
 * The one way railyard runs a PostgreSQL transaction: check out a client, BEGIN, run the work, COMMIT;
 * any throw rolls back and is rethrown unchanged; the client always goes back to the pool.
 *
 * Invariants:
 * - The work uses only the client it is given: a query on the pool would run outside the transaction.
 * - Work that decides to change nothing (a limit reached, already claimed) simply returns; committing
 *   a transaction that wrote nothing is the same as rolling it back, and releases its advisory locks.
 * - A failed ROLLBACK (the connection is gone) never hides the error that caused it.
 * - With `retryConflicts`, a deadlock or serialization failure re-runs the whole transaction (at most
 *   five attempts, with a short random pause). Only for work that has no effect outside the database,
 *   so that running it again is the same as running it once.
 */
import type { Pool, PoolClient } from 'pg';

export interface TransactionOptions {
  retryConflicts?: boolean;
}

/** deadlock_detected and serialization_failure: PostgreSQL's "run it again" answers. */
const CONFLICTS = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 5;

export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const attempts = opts.retryConflicts === true ? MAX_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (attempt >= attempts || !CONFLICTS.has(codeOf(err))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    } finally {
      client.release();
    }
  }
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
}
