/**
 * API keys: issue, authenticate, list, revoke. A key is `ry_` + 32 random bytes (base64url) and is shown
 * once; the database keeps only its SHA-256 hash and an 11-character prefix. Authentication narrows the
 * candidates by prefix and then compares hashes with `timingSafeEqual`, so the comparison time does not
 * depend on how much of a guessed key is right. Revoked keys never authenticate, from the next request
 * on: nothing is cached between requests.
 *
 * The API process gives this store a pool of its own (api/pools.ts), so that authenticating, which
 * every request does first, never waits for a connection behind slow queries of other requests.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { inTransaction } from './transaction';

export const KEY_PREFIX_LENGTH = 11;
/** last_used_at is written at most this often per key (the statement checks it too). */
const TOUCH_INTERVAL_MS = 60_000;

export interface Organisation {
  id: string;
  slug: string;
  /** The name of the API key that authenticated the request (shown as who cancelled a PR); absent otherwise. */
  keyName?: string;
}

export interface ApiKeySummary {
  id: string;
  organisationSlug: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ApiKeyStore {
  /** The organisation of a valid, unrevoked key, or null. */
  authenticate(key: string): Promise<Organisation | null>;
  create(organisationSlug: string, name?: string): Promise<{ key: string; summary: ApiKeySummary }>;
  list(organisationSlug?: string): Promise<ApiKeySummary[]>;
  /** Revokes by id or prefix; returns how many keys were revoked. */
  revoke(idOrPrefix: string): Promise<number>;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function generateKey(): string {
  return `ry_${randomBytes(32).toString('base64url')}`;
}

interface KeyRow {
  id: string;
  organisation_id: string;
  slug: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toSummary = (r: KeyRow): ApiKeySummary => ({
  id: r.id,
  organisationSlug: r.slug,
  name: r.name,
  prefix: r.prefix,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

const SELECT_KEYS = `SELECT k.id, k.organisation_id, o.slug, k.name, k.prefix, k.key_hash, k.created_at,
  k.last_used_at, k.revoked_at FROM api_keys k JOIN organisations o ON o.id = k.organisation_id`;

export function createApiKeyStore(
  pool: Pool,
  opts: { onTouchError?: (err: unknown) => void } = {},
): ApiKeyStore {
  return {
    async authenticate(key) {
      if (key.length < KEY_PREFIX_LENGTH || key.length > 200) return null;
      const presented = hashKey(key);
      // Every request runs this: a named statement, so PostgreSQL plans it once per connection. Never
      // cached across requests: a revoked key fails on the next request.
      const { rows } = await pool.query<KeyRow>({
        name: 'railyard-api-key-authenticate',
        text: `${SELECT_KEYS} WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
        values: [key.slice(0, KEY_PREFIX_LENGTH)],
      });
      const match = rows.find((r) => timingSafeEqual(r.key_hash, presented));
      if (!match) return null;
      // Recording use is best effort and at most once a minute per key, so reads stay read-only. The
      // row just read says whether a minute has passed, so most requests send no UPDATE at all; the
      // statement's own condition still settles races between processes (and their clocks).
      if (match.last_used_at === null || Date.now() - match.last_used_at.getTime() >= TOUCH_INTERVAL_MS)
        pool
          .query(
            `UPDATE api_keys SET last_used_at = now() WHERE id = $1
             AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
            [match.id],
          )
          .catch((err: unknown) => opts.onTouchError?.(err));
      return { id: match.organisation_id, slug: match.slug, keyName: match.name };
    },

    async create(organisationSlug, name = '') {
      const key = generateKey();
      const id = await inTransaction(pool, async (client) => {
        await client.query(`INSERT INTO organisations (slug) VALUES ($1) ON CONFLICT (slug) DO NOTHING`, [
          organisationSlug,
        ]);
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO api_keys (organisation_id, name, prefix, key_hash)
           SELECT id, $2, $3, $4 FROM organisations WHERE slug = $1 RETURNING id`,
          [organisationSlug, name, key.slice(0, KEY_PREFIX_LENGTH), hashKey(key)],
        );
        return rows[0]!.id;
      });
      const created = await pool.query<KeyRow>(`${SELECT_KEYS} WHERE k.id = $1`, [id]);
      return { key, summary: toSummary(created.rows[0]!) };
    },

    async list(organisationSlug) {
      const { rows } = organisationSlug
        ? await pool.query<KeyRow>(`${SELECT_KEYS} WHERE o.slug = $1 ORDER BY k.created_at`, [
            organisationSlug,
          ])
        : await pool.query<KeyRow>(`${SELECT_KEYS} ORDER BY o.slug, k.created_at`);
      return rows.map(toSummary);
    },

    async revoke(idOrPrefix) {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrPrefix);
      const { rowCount } = await pool.query(
        `UPDATE api_keys SET revoked_at = now() WHERE revoked_at IS NULL AND ${isUuid ? 'id = $1::uuid' : 'prefix = $1'}`,
        [idOrPrefix],
      );
      return rowCount ?? 0;
    },
  };
}
