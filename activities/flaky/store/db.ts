/**
 * Transactions for the flaky-test store. Ingestion and re-evaluation lock rows of several tables;
 * they take them in one global order (test_cases, then rollups, each by primary key) so that two
 * transactions cannot wait on each other, and a deadlock or serialization failure that slips
 * through anyway (another writer with another order) is retried as a whole: every transaction here
 * is safe to re-run because it either commits completely or not at all.
 */
import { type Pool, type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';

/**
 * What both a pool and a checked-out client can do. Hot reads pass a named QueryConfig: pg prepares
 * it once per connection, so PostgreSQL plans it once instead of on every request.
 */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<{ rows: R[] }>;
}

const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 5;

export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has(codeOf(err))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    } finally {
      client.release();
    }
  }
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
}
