/**
 * Transactions for the flaky-test store. Ingestion and re-evaluation lock rows of several tables;
 * they take them in one global order (test_cases, then rollups, each by primary key) so that two
 * transactions cannot wait on each other, and a deadlock or serialization failure that slips
 * through anyway (another writer with another order) is retried as a whole: every transaction here
 * is safe to re-run because it either commits completely or not at all.
 */
import { type Pool, type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';
import { inTransaction as transaction } from '../../stores/transaction';

/**
 * What both a pool and a checked-out client can do. Hot reads pass a named QueryConfig: pg prepares
 * it once per connection, so PostgreSQL plans it once instead of on every request.
 */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<{ rows: R[] }>;
}

/** A flaky-store transaction: the platform's, re-run as a whole on a deadlock or serialization failure. */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return transaction(pool, work, { retryConflicts: true });
}
