/**
 * The bundle uploads createBundleUpload has promised (table bundle_uploads, migration 0014): which
 * organisation and repository each upload URL is for, until when, and whether its bundle came.
 *
 * Rules: at most `maxLive` unexpired uploads per organisation made with its keys, and apart from those
 * at most `maxLivePublicId` made by callers holding only a repository's public id (issue 24: a stranger
 * with the public id never spends the owner's own URLs); createBundleUpload answers 429 past either
 * (expired rows of the organisation are deleted first). Counted and inserted under a
 * per-organisation advisory lock, so concurrent calls at the cap cannot all pass it (each would
 * otherwise count the same snapshot); one PUT claims an upload, atomically, and
 * only a pending, unexpired one; a claim ends `received` or `refused`, or is released back to
 * pending when railyard failed, so the client's retry can use the same URL.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from '../../stores/db';
import { inTransaction } from '../../stores/transaction';
import type { Organisation } from '../../stores/api-keys';
import type { RepositoryKey } from '../../contract';

export interface PendingUpload {
  readonly id: string;
  readonly organisation: Organisation;
  readonly repo: RepositoryKey;
}

/** Who asked for an upload URL: a key of the organisation, or a caller with a repository's public id. */
export type UploadCaller = 'key' | 'public-id';

export type CreateOutcome = { kind: 'created'; id: string } | { kind: 'limit_reached'; limit: number };

export type ClaimOutcome =
  | { kind: 'claimed'; upload: PendingUpload }
  | { kind: 'unknown' }
  | { kind: 'expired' }
  | { kind: 'used' }
  | { kind: 'busy' };

export interface PendingBundleUploads {
  create(
    organisationId: string,
    repo: RepositoryKey,
    expiresAt: Date,
    now: Date,
    caller?: UploadCaller,
  ): Promise<CreateOutcome>;
  /** The organisation an upload is for, or null; for counting its in-flight uploads before the claim. */
  organisationOf(id: string): Promise<Organisation | null>;
  /** The organisation an upload is for and who asked for its URL, or null. */
  uploaderOf(id: string): Promise<{ organisation: Organisation; caller: UploadCaller } | null>;
  claim(id: string, now: Date): Promise<ClaimOutcome>;
  finish(id: string, outcome: 'received' | 'refused', now: Date): Promise<void>;
  release(id: string): Promise<void>;
}

export const DEFAULT_MAX_LIVE_UPLOADS = 1_000;
/** Default of RAILYARD_PUBLIC_ID_UPLOAD_URLS. */
export const DEFAULT_MAX_LIVE_PUBLIC_ID_UPLOADS = 20;

interface ClaimRow {
  id: string;
  organisation_id: string;
  slug: string;
  host: string;
  owner: string;
  name: string;
}

export function createPendingBundleUploads(
  pool: Pool,
  opts: { maxLive?: number; maxLivePublicId?: number } = {},
): PendingBundleUploads {
  const maxLive = opts.maxLive ?? DEFAULT_MAX_LIVE_UPLOADS;
  const maxLivePublicId = opts.maxLivePublicId ?? DEFAULT_MAX_LIVE_PUBLIC_ID_UPLOADS;
  return {
    async create(organisationId, repo, expiresAt, now, caller = 'key') {
      const id = randomUUID();
      const byPublicId = caller === 'public-id';
      const cap = byPublicId ? maxLivePublicId : maxLive;
      const { rowCount } = await inTransaction(pool, async (client) => {
        // A statement's snapshot is taken when it starts: after the lock, it sees the previous holder's row.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `bundle-uploads/${organisationId}`,
        ]);
        return client.query(
          `WITH purged AS (
           DELETE FROM bundle_uploads WHERE organisation_id = $2 AND expires_at <= $7
         )
         INSERT INTO bundle_uploads
           (id, organisation_id, host, owner, name, state, created_at, expires_at, by_public_id)
         SELECT $1, $2, $3, $4, $5, 'pending', $7, $6, $9
         WHERE (SELECT count(*) FROM bundle_uploads
                 WHERE organisation_id = $2 AND by_public_id = $9 AND expires_at > $7) < $8`,
          [id, organisationId, repo.host, repo.owner, repo.name, expiresAt, now, cap, byPublicId],
        );
      });
      return rowCount === 1 ? { kind: 'created', id } : { kind: 'limit_reached', limit: cap };
    },
    async uploaderOf(id) {
      const { rows } = await pool.query<{ id: string; slug: string; by_public_id: boolean }>(
        `SELECT o.id, o.slug, u.by_public_id
           FROM bundle_uploads u JOIN organisations o ON o.id = u.organisation_id WHERE u.id = $1`,
        [id],
      );
      const row = rows[0];
      return row
        ? { organisation: { id: row.id, slug: row.slug }, caller: row.by_public_id ? 'public-id' : 'key' }
        : null;
    },
    async organisationOf(id) {
      const { rows } = await pool.query<{ id: string; slug: string }>(
        `SELECT o.id, o.slug FROM bundle_uploads u JOIN organisations o ON o.id = u.organisation_id WHERE u.id = $1`,
        [id],
      );
      return rows[0] ?? null;
    },
    async claim(id, now) {
      const { rows } = await pool.query<ClaimRow>(
        `UPDATE bundle_uploads u SET state = 'receiving'
           FROM organisations o
          WHERE u.id = $1 AND u.state = 'pending' AND u.expires_at > $2 AND o.id = u.organisation_id
          RETURNING u.id, u.organisation_id, o.slug, u.host, u.owner, u.name`,
        [id, now],
      );
      const row = rows[0];
      if (row) {
        return {
          kind: 'claimed',
          upload: {
            id: row.id,
            organisation: { id: row.organisation_id, slug: row.slug },
            repo: { host: row.host, owner: row.owner, name: row.name },
          },
        };
      }
      const found = await pool.query<{ state: string; expired: boolean }>(
        `SELECT state, expires_at <= $2 AS expired FROM bundle_uploads WHERE id = $1`,
        [id, now],
      );
      const state = found.rows[0];
      if (!state) return { kind: 'unknown' };
      if (state.state === 'receiving') return { kind: 'busy' };
      if (state.state !== 'pending') return { kind: 'used' };
      return state.expired ? { kind: 'expired' } : { kind: 'unknown' };
    },
    async finish(id, outcome, now) {
      await pool.query(
        `UPDATE bundle_uploads SET state = $2, finished_at = $3 WHERE id = $1 AND state = 'receiving'`,
        [id, outcome, now],
      );
    },
    async release(id) {
      await pool.query(`UPDATE bundle_uploads SET state = 'pending' WHERE id = $1 AND state = 'receiving'`, [
        id,
      ]);
    },
  };
}
