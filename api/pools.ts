/**
 * The API process's two PostgreSQL pools. `main` serves the routes (flaky-test lists and uploads,
 * metrics, webhooks); each statement on it is cancelled after RAILYARD_API_STATEMENT_TIMEOUT_MS, and
 * the error handler answers that 503. `keys` serves only API key authentication (and its best-effort
 * last-use writes): a few connections of its own, so that a main pool taken up by slow list queries or
 * uploads never makes every other request wait for its key to be looked up.
 *
 * Invariant: nothing but the ApiKeyStore's authenticate path uses `keys`; its statements are one
 * indexed lookup, hence the short timeouts.
 */
import type { Pool } from '../stores/db';
import { createPool } from '../stores/db';

export interface ApiPoolSettings {
  DATABASE_URL: string;
  RAILYARD_API_POOL_SIZE: number;
  RAILYARD_API_KEY_POOL_SIZE: number;
  RAILYARD_API_STATEMENT_TIMEOUT_MS: number;
}

export interface ApiPools {
  readonly main: Pool;
  readonly keys: Pool;
  end(): Promise<void>;
}

/** A key lookup is one index probe; anything slower is a sick database, better refused than waited on. */
const KEY_STATEMENT_TIMEOUT_MS = 2_000;
const KEY_CONNECT_TIMEOUT_MS = 2_000;

export function createApiPools(settings: ApiPoolSettings): ApiPools {
  const main = createPool(settings.DATABASE_URL, {
    max: settings.RAILYARD_API_POOL_SIZE,
    applicationName: 'railyard-api',
    statementTimeoutMs: settings.RAILYARD_API_STATEMENT_TIMEOUT_MS,
  });
  const keys = createPool(settings.DATABASE_URL, {
    max: settings.RAILYARD_API_KEY_POOL_SIZE,
    applicationName: 'railyard-api-keys',
    statementTimeoutMs: KEY_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMs: KEY_CONNECT_TIMEOUT_MS,
  });
  return {
    main,
    keys,
    end: async () => void (await Promise.allSettled([main.end(), keys.end()])),
  };
}
