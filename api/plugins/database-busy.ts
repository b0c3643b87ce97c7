/**
 * PostgreSQL refusals that mean "busy, try again", not "broken": a statement cancelled by its
 * `statement_timeout` (or a lock wait past `lock_timeout`), and a pool that found no free connection
 * within its connect timeout. The error handler answers them 503 with a sentence and Retry-After,
 * never 500 with the driver's message, so a client retries and an operator is not paged for load.
 */

/** SQLSTATE of a statement cancelled by statement_timeout (or a cancel request). */
const QUERY_CANCELED = '57014';
/** SQLSTATE of a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';
/** What pg-pool says when every connection stayed busy past connectionTimeoutMillis. */
const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

export type DatabaseBusy = 'statement_timeout' | 'pool_exhausted';

export function databaseBusy(err: unknown): DatabaseBusy | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (code === QUERY_CANCELED || code === LOCK_NOT_AVAILABLE) return 'statement_timeout';
  if (err.message === POOL_TIMEOUT) return 'pool_exhausted';
  return null;
}

export function databaseBusyMessage(kind: DatabaseBusy): string {
  switch (kind) {
    case 'statement_timeout':
      return 'The database did not finish this request in the time allowed; retry later or ask for less (a shorter time range or a smaller page).';
    case 'pool_exhausted':
      return 'The database is busy with other requests; retry in a few seconds.';
  }
}
