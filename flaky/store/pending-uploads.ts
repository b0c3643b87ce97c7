/**
 * The bundle uploads createBundleUpload has promised (table bundle_uploads, migration 0014): which
 * organisation and repository each upload URL is for, until when, and whether its bundle came.
 *
 * Rules: at most `maxLive` unexpired uploads per organisation (createBundleUpload answers 429 past
 * it; expired rows of the organisation are deleted first), counted and inserted under a
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

export type CreateOutcome = { kind: 'created'; id: string } | { kind: 'limit_reached'; limit: number };

export type ClaimOutcome =
  | { kind: 'claimed'; upload: PendingUpload }
  | { kind: 'unknown' }
  | { kind: 'expired' }
  | { kind: 'used' }
  | { kind: 'busy' };

export interface PendingBundleUploads {
  create(organisationId: string, repo: RepositoryKey, expiresAt: Date, now: Date): Promise<CreateOutcome>;
  /** The organisation an upload is for, or null; for counting its in-flight uploads before the claim. */
  organisationOf(id: string): Promise<Organisation | null>;
  claim(id: string, now: Date): Promise<ClaimOutcome>;
  finish(id: string, outcome: 'received' | 'refused', now: Date): Promise<void>;
  release(id: string): Promise<void>;
}

export const DEFAULT_MAX_LIVE_UPLOADS = 1_000;

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
  opts: { maxLive?: number } = {},
): PendingBundleUploads {
  const maxLive = opts.maxLive ?? DEFAULT_MAX_LIVE_UPLOADS;
  return {
    async create(organisationId, repo, expiresAt, now) {
      const id = randomUUID();
      const { rowCount } = await inTransaction(pool, async (client) => {
        // A statement's snapshot is taken when it starts: after the lock, it sees the previous holder's row.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `bundle-uploads/${organisationId}`,
        ]);
        return client.query(
          `WITH purged AS (
           DELETE FROM bundle_uploads WHERE organisation_id = $2 AND expires_at <= $7
         )
         INSERT INTO bundle_uploads (id, organisation_id, host, owner, name, state, created_at, expires_at)
         SELECT $1, $2, $3, $4, $5, 'pending', $7, $6
         WHERE (SELECT count(*) FROM bundle_uploads WHERE organisation_id = $2 AND expires_at > $7) < $8`,
          [id, organisationId, repo.host, repo.owner, repo.name, expiresAt, now, maxLive],
        );
      });
      return rowCount === 1 ? { kind: 'created', id } : { kind: 'limit_reached', limit: maxLive };
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
