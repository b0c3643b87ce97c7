/**
 * Idempotency keys (migrations/0009_idempotency-keys.sql): the first answer to a change request sent
 * with an `Idempotency-Key`, kept per (organisation, key) so every retry gets that answer back instead
 * of applying the change again. The HTTP side is api/routes/merge-queue/idempotency.ts.
 *
 * Rules and invariants:
 * - Insert first: `claim` inserts the key `pending` before the request is applied, so of two
 *   concurrent requests with one key exactly one is told `claimed`; the other learns `in_progress`
 *   (or, once the first finished, `replay`). PostgreSQL's unique key settles the race.
 * - A key is bound to one request (its hash): another request under it is a `mismatch`, never applied.
 * - The update id is minted with the row and returned by every claim of it, so a retry that takes
 *   over an abandoned key (its lease ran out: the process applying it died) reaches Temporal with the
 *   update id the first attempt used, and Temporal applies the change once.
 * - `complete` and `release` act only on the attempt that holds the row (same update id, pending), so
 *   a late finisher cannot overwrite an answer.
 * - A row expires `ttlMs` after it was created; an expired row counts as absent (a claim replaces it
 *   with a new update id) and `purgeExpired` deletes it.
 * - Times are PostgreSQL's (`now()`), so API processes with skewed clocks agree.
 */
import type { Pool } from 'pg';

/** 24 hours, as Stripe and the IETF draft suggest: far past any client's retries. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a pending key is held for the request applying it. Longer than any request may take (the
 * API's busy budget of 60 s plus a Temporal call deadline), so only a request whose process died
 * loses its key to a retry.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 120_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface KeyRef {
  organisationId: string;
  key: string;
  /** The update id the holding attempt carries (from its claim). */
  updateId: string;
}

/** A finished request's answer, as sent. */
export interface StoredAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

export type Claim =
  /** Apply the request under `updateId`; `takenOver` when a previous attempt abandoned the key. */
  | { kind: 'claimed'; updateId: string; takenOver: boolean }
  /** The key's request finished: answer with its answer. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request. */
  | { kind: 'mismatch' }
  /** The key's request is being applied right now. */
  | { kind: 'in_progress' };

export interface ClaimRequest {
  organisationId: string;
  key: string;
  /** SHA-256 (32 bytes) of what makes two requests the same request. */
  requestHash: Buffer;
  /** The update id a new row gets; ignored when the row exists. */
  newUpdateId: string;
}

export interface IdempotencyKeyStore {
  claim(request: ClaimRequest): Promise<Claim>;
  /** Stores the answer; false when this attempt no longer holds the key. */
  complete(ref: KeyRef, answer: StoredAnswer): Promise<boolean>;
  /** Ends the attempt without an answer (it failed on our side): a retry may take the key over now. */
  release(ref: KeyRef): Promise<void>;
  /** Deletes up to `limit` expired rows; returns how many. */
  purgeExpired(limit?: number): Promise<number>;
}

export interface IdempotencyKeyStoreOptions {
  ttlMs?: number;
  leaseMs?: number;
}

interface Row {
  request_hash: Buffer;
  state: 'pending' | 'done';
  status_code: number | null;
  content_type: string | null;
  body: string | null;
}

/** A row can expire (and be purged) between our statements; starting again settles it. */
const CLAIM_ROUNDS = 3;

export function createIdempotencyKeyStore(
  pool: Pool,
  opts: IdempotencyKeyStoreOptions = {},
): IdempotencyKeyStore {
  const ttl = `${opts.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS} milliseconds`;
  const lease = `${opts.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS} milliseconds`;

  /** A new row, or a fresh start over an expired one. */
  async function insert(r: ClaimRequest): Promise<string | null> {
    const { rows } = await pool.query<{ update_id: string }>(
      `INSERT INTO idempotency_keys
         (organisation_id, key, request_hash, update_id, state, lease_until, expires_at)
       VALUES ($1, $2, $3, $4, 'pending', now() + $5::interval, now() + $6::interval)
       ON CONFLICT (organisation_id, key) DO UPDATE SET
         request_hash = EXCLUDED.request_hash, update_id = EXCLUDED.update_id, state = 'pending',
         lease_until = EXCLUDED.lease_until, status_code = NULL, content_type = NULL, body = NULL,
         created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= now()
       RETURNING update_id`,
      [r.organisationId, r.key, r.requestHash, r.newUpdateId, lease, ttl],
    );
    return rows[0]?.update_id ?? null;
  }

  /** The same request again after its attempt abandoned the key: the retry carries on with its id. */
  async function takeOver(r: ClaimRequest): Promise<string | null> {
    const { rows } = await pool.query<{ update_id: string }>(
      `UPDATE idempotency_keys SET lease_until = now() + $4::interval
       WHERE organisation_id = $1 AND key = $2 AND request_hash = $3 AND state = 'pending'
         AND lease_until <= now() AND expires_at > now()
       RETURNING update_id`,
      [r.organisationId, r.key, r.requestHash, lease],
    );
    return rows[0]?.update_id ?? null;
  }

  async function existing(r: ClaimRequest): Promise<Claim | null> {
    const { rows } = await pool.query<Row>(
      `SELECT request_hash, state, status_code, content_type, body FROM idempotency_keys
       WHERE organisation_id = $1 AND key = $2 AND expires_at > now()`,
      [r.organisationId, r.key],
    );
    const row = rows[0];
    if (!row) return null;
    if (!row.request_hash.equals(r.requestHash)) return { kind: 'mismatch' };
    switch (row.state) {
      case 'pending':
        return { kind: 'in_progress' };
      case 'done':
        return {
          kind: 'replay',
          answer: { statusCode: row.status_code!, contentType: row.content_type, body: row.body! },
        };
    }
  }

  return {
    async claim(request) {
      for (let round = 0; round < CLAIM_ROUNDS; round++) {
        const inserted = await insert(request);
        if (inserted !== null) return { kind: 'claimed', updateId: inserted, takenOver: false };
        const taken = await takeOver(request);
        if (taken !== null) return { kind: 'claimed', updateId: taken, takenOver: true };
        const found = await existing(request);
        if (found !== null) return found;
        // The row expired between the statements: start again.
      }
      throw new Error(`idempotency key claim did not settle after ${CLAIM_ROUNDS} rounds`);
    },

    async complete(ref, answer) {
      const { rowCount } = await pool.query(
        `UPDATE idempotency_keys SET state = 'done', lease_until = NULL,
           status_code = $4, content_type = $5, body = $6
         WHERE organisation_id = $1 AND key = $2 AND update_id = $3 AND state = 'pending'`,
        [ref.organisationId, ref.key, ref.updateId, answer.statusCode, answer.contentType, answer.body],
      );
      return (rowCount ?? 0) > 0;
    },

    async release(ref) {
      await pool.query(
        `UPDATE idempotency_keys SET lease_until = now()
         WHERE organisation_id = $1 AND key = $2 AND update_id = $3 AND state = 'pending'`,
        [ref.organisationId, ref.key, ref.updateId],
      );
    },

    async purgeExpired(limit = 1_000) {
      const { rowCount } = await pool.query(
        `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1))`,
        [limit],
      );
      return rowCount ?? 0;
    },
  };
}
