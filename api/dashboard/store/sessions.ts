/**
 * Dashboard sessions in PostgreSQL (migration 0016). Signing in with an API key makes a session: a
 * random 32-byte id (the cookie's value, never stored) and a random CSRF token. The row keeps only
 * SHA-256(id), the key it was made with, the key's organisation and the expiry.
 *
 * Invariants:
 * - A session is valid only while its row exists, it has not expired, and its API key is not revoked
 *   (the lookup joins api_keys each time: nothing is cached between requests).
 * - A key has at most MAX_SESSIONS_PER_KEY sessions: signing in again drops the oldest beyond it, so
 *   repeated sign-ins cannot grow the table without bound; expired rows are swept at each sign-in.
 * - The key itself is only hashed and matched here; it is never stored, logged or returned.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { hashKey, type Organisation } from '../../../stores/api-keys';

export const MAX_SESSIONS_PER_KEY = 20;
export const DEFAULT_SESSION_TTL_MS = 12 * 3_600_000;

export interface UiSession {
  readonly organisation: Organisation;
  readonly csrfToken: string;
  /** The key's public prefix, recorded as the actor of changes made in this session. */
  readonly keyPrefix: string;
  readonly expiresAt: Date;
}

export interface UiSessionStore {
  /** A new session for a valid, unrevoked key (null otherwise) and the cookie value that names it. */
  create(apiKey: string): Promise<{ id: string; session: UiSession } | null>;
  find(id: string): Promise<UiSession | null>;
  remove(id: string): Promise<void>;
}

const idHash = (id: string) => createHash('sha256').update(id, 'utf8').digest();

interface Row {
  organisation_id: string;
  slug: string;
  csrf_token: string;
  prefix: string;
  expires_at: Date;
}

const toSession = (r: Row): UiSession => ({
  organisation: { id: r.organisation_id, slug: r.slug },
  csrfToken: r.csrf_token,
  keyPrefix: r.prefix,
  expiresAt: r.expires_at,
});

export function createUiSessionStore(pool: Pool, opts: { ttlMs?: number } = {}): UiSessionStore {
  const ttlMs = opts.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  return {
    async create(apiKey) {
      if (apiKey.length < 11 || apiKey.length > 200) return null;
      const id = randomBytes(32).toString('base64url');
      const csrf = randomBytes(32).toString('base64url');
      const { rows } = await pool.query<Row & { api_key_id: string }>(
        `WITH k AS (
           SELECT k.id, k.organisation_id, k.prefix, o.slug FROM api_keys k
             JOIN organisations o ON o.id = k.organisation_id
            WHERE k.key_hash = $1 AND k.revoked_at IS NULL)
         INSERT INTO ui_sessions (id_hash, api_key_id, organisation_id, csrf_token, expires_at)
         SELECT $2, k.id, k.organisation_id, $3, now() + ($4::bigint * interval '1 millisecond') FROM k
         RETURNING api_key_id, organisation_id, csrf_token, expires_at,
           (SELECT slug FROM k) AS slug, (SELECT prefix FROM k) AS prefix`,
        [hashKey(apiKey), idHash(id), csrf, ttlMs],
      );
      const row = rows[0];
      if (row === undefined) return null;
      // Bounded per key, and expired rows swept; best effort (a failure leaves rows a later sign-in removes).
      await pool.query(
        `DELETE FROM ui_sessions WHERE expires_at <= now()
            OR id_hash IN (SELECT id_hash FROM ui_sessions WHERE api_key_id = $1
                            ORDER BY created_at DESC, id_hash OFFSET $2)`,
        [row.api_key_id, MAX_SESSIONS_PER_KEY],
      );
      return { id, session: toSession(row) };
    },

    async find(id) {
      if (id.length === 0 || id.length > 100) return null;
      const { rows } = await pool.query<Row>(
        `SELECT s.organisation_id, o.slug, s.csrf_token, k.prefix, s.expires_at FROM ui_sessions s
           JOIN api_keys k ON k.id = s.api_key_id AND k.revoked_at IS NULL
           JOIN organisations o ON o.id = s.organisation_id
          WHERE s.id_hash = $1 AND s.expires_at > now()`,
        [idHash(id)],
      );
      return rows[0] ? toSession(rows[0]) : null;
    },

    async remove(id) {
      await pool.query('DELETE FROM ui_sessions WHERE id_hash = $1', [idHash(id)]);
    },
  };
}
