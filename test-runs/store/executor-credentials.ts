/**
 * Executor credentials (issue 24, ADR 0014): what an executor presents to the API's /v1/executor/*
 * routes instead of an organisation's API key. Operators issue them (`npm run executors -- add <name>`;
 * `npm start` issues its own executor one), list and revoke them.
 *
 * Invariants:
 * - A credential is `rye_` + 32 random bytes (base64url), shown once; only its SHA-256 is stored, and
 *   lookups are by that digest (a 256-bit secret: nothing to learn from the lookup's timing).
 * - A revoked credential never authenticates again, from the next request on (nothing is cached).
 * - Names are unique, 1–64 characters of [A-Za-z0-9._-]: they appear in logs and job records.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';

export const EXECUTOR_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const EXECUTOR_TOKEN = /^rye_[A-Za-z0-9_-]{43}$/;

export interface ExecutorIdentity {
  id: string;
  name: string;
}

export interface ExecutorSummary extends ExecutorIdentity {
  createdAt: Date;
  lastSeenAt: Date | null;
  revokedAt: Date | null;
  /** What the executor last announced of itself (host, slots, sandbox); null before it announced. */
  announced: Record<string, unknown> | null;
}

/** What an executor says of itself when it starts (POST /v1/executor/announce). */
export interface ExecutorAnnouncement {
  host: string;
  slots: number;
  sandbox: string;
  network: string;
}

export type AddResult = { kind: 'added'; token: string; executor: ExecutorIdentity } | { kind: 'name_taken' };

export interface ExecutorCredentials {
  add(name: string): Promise<AddResult>;
  /**
   * A new credential for the executor of that name, made or un-revoked (the old credential stops
   * working): how `npm start` and test stacks give their own executor one.
   */
  reissue(name: string): Promise<{ token: string; executor: ExecutorIdentity }>;
  /** The executor a credential names, or null for an unknown, malformed or revoked one. */
  authenticate(token: string): Promise<ExecutorIdentity | null>;
  announce(id: string, announcement: ExecutorAnnouncement): Promise<void>;
  list(): Promise<ExecutorSummary[]>;
  /** Whether an unrevoked executor of that name was revoked now. */
  revoke(name: string): Promise<boolean>;
}

export function executorTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function createExecutorCredentials(pool: Pool): ExecutorCredentials {
  return {
    async add(name) {
      if (!EXECUTOR_NAME.test(name))
        throw new Error(`executor name ${JSON.stringify(name)} is not 1-64 of A-Z a-z 0-9 . _ -`);
      const token = `rye_${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      const { rowCount } = await pool.query(
        `INSERT INTO executors (id, name, token_sha256) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
        [id, name, executorTokenDigest(token)],
      );
      return rowCount === 1 ? { kind: 'added', token, executor: { id, name } } : { kind: 'name_taken' };
    },

    async reissue(name) {
      if (!EXECUTOR_NAME.test(name))
        throw new Error(`executor name ${JSON.stringify(name)} is not 1-64 of A-Z a-z 0-9 . _ -`);
      const token = `rye_${randomBytes(32).toString('base64url')}`;
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO executors (id, name, token_sha256) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET token_sha256 = excluded.token_sha256, revoked_at = NULL
         RETURNING id`,
        [randomUUID(), name, executorTokenDigest(token)],
      );
      return { token, executor: { id: rows[0]!.id, name } };
    },

    async authenticate(token) {
      if (!EXECUTOR_TOKEN.test(token)) return null;
      const { rows } = await pool.query<{ id: string; name: string }>(
        `UPDATE executors SET last_seen_at = now()
          WHERE token_sha256 = $1 AND revoked_at IS NULL
            AND (last_seen_at IS NULL OR last_seen_at < now() - interval '10 seconds')
          RETURNING id, name`,
        [executorTokenDigest(token)],
      );
      if (rows[0]) return rows[0];
      // Seen within the last 10 s: no write, only the check.
      const seen = await pool.query<{ id: string; name: string }>(
        'SELECT id, name FROM executors WHERE token_sha256 = $1 AND revoked_at IS NULL',
        [executorTokenDigest(token)],
      );
      return seen.rows[0] ?? null;
    },

    async announce(id, announcement) {
      await pool.query('UPDATE executors SET announced = $2, last_seen_at = now() WHERE id = $1', [
        id,
        JSON.stringify(announcement),
      ]);
    },

    async list() {
      const { rows } = await pool.query<{
        id: string;
        name: string;
        created_at: Date;
        last_seen_at: Date | null;
        revoked_at: Date | null;
        announced: Record<string, unknown> | null;
      }>(
        'SELECT id, name, created_at, last_seen_at, revoked_at, announced FROM executors ORDER BY created_at, name',
      );
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        createdAt: r.created_at,
        lastSeenAt: r.last_seen_at,
        revokedAt: r.revoked_at,
        announced: r.announced,
      }));
    },

    async revoke(name) {
      const { rowCount } = await pool.query(
        'UPDATE executors SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL',
        [name],
      );
      return rowCount === 1;
    },
  };
}
