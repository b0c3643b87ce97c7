/**
 * PostgreSQL pool factory. One pool per process, created by the composition root and passed down;
 * no module-level pool. Timeouts keep a dead database from hanging requests.
 */
import { Pool } from 'pg';

export function createPool(databaseUrl: string, opts: { max?: number; applicationName?: string } = {}): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? 'railyard',
    statement_timeout: 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}
