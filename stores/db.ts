/**
 * PostgreSQL pool factory. Each process creates its pools in its composition root and passes them
 * down; no module-level pool. Timeouts keep a dead or saturated database from hanging requests: a
 * connection not handed out within `connectionTimeoutMs` fails the query, and every statement is
 * cancelled by the server after `statementTimeoutMs` (PostgreSQL's `statement_timeout`, set on each
 * connection as it opens).
 */
import { Pool } from 'pg';

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Default 30 s. */
  statementTimeoutMs?: number;
  /** Default 5 s. */
  connectionTimeoutMs?: number;
}

export function createPool(databaseUrl: string, opts: PoolOptions = {}): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? 'railyard',
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Resolves when the database answers a trivial statement (the readiness probe). */
export async function pingDatabase(pool: Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/**
 * The pool and client types code outside the stores holds and hands on (a service takes a pool and
 * gives it to its stores): only stores import `pg` (eslint.config.mjs).
 */
export type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
