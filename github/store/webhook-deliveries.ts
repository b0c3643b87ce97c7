/**
 * GitHub webhook deliveries (migration 0011): each verified delivery stored once by its
 * X-GitHub-Delivery id, then marked handled with what acting on it did.
 *
 * Invariants:
 * - `record` inserts a delivery id at most once; a second delivery of the same id returns false and
 *   changes nothing (GitHub redelivers on timeouts and on request).
 * - `markHandled` only fills the outcome; the stored payload is never rewritten.
 * - The payload is stored as GitHub sent it, except that a NUL character (the JSON escape `\u0000`,
 *   which jsonb cannot hold) is stored as U+FFFD; the signature was checked on the original body.
 * - Reconciliation reads are bounded: `unhandled` and `prune` take a limit, `storedIds` is asked about
 *   one page of GitHub's delivery log at a time.
 * - The delivery-log listing state (migration 0012) is one row per GitHub App; `saveListing`
 *   replaces it whole.
 */
import type { Pool } from 'pg';

export interface WebhookDelivery {
  deliveryId: string;
  event: string;
  action: string | null;
  installationId: number | null;
  /** owner/name of payload.repository, when there is one. */
  repository: string | null;
  /** The JSON text of the body, exactly as signed. */
  payload: string;
}

/** A stored delivery nobody acted on (the process stopped between storing and acting). */
export interface UnhandledDelivery {
  deliveryId: string;
  event: string;
  /** The stored payload, parsed. */
  payload: unknown;
}

/** How far the app's delivery log has been read (migration 0012). */
export interface DeliveryListing {
  /** Every delivery GitHub made up to this time has been looked at. */
  listedThrough: Date;
  /** A listing stopped at its page bound: where to continue, and the newest delivery it saw. */
  resume: { cursor: string; through: Date } | null;
}

export interface WebhookDeliveryStore {
  /** True when stored now; false when this delivery id was stored before. */
  record(delivery: WebhookDelivery): Promise<boolean>;
  markHandled(deliveryId: string, outcome: string): Promise<void>;
  /** Oldest first: deliveries received before `before` and never marked handled, at most `limit`. */
  unhandled(before: Date, limit: number): Promise<UnhandledDelivery[]>;
  /** Which of these delivery ids are stored. */
  storedIds(deliveryIds: readonly string[]): Promise<Set<string>>;
  /** Deletes at most `limit` deliveries received before `before`, oldest first; returns how many. */
  prune(before: Date, limit: number): Promise<number>;
  listing(appId: number): Promise<DeliveryListing | null>;
  saveListing(appId: number, listing: DeliveryListing): Promise<void>;
}

/** `\u0000` escapes (not an escaped backslash followed by `u0000`) become `\ufffd`. */
export const withoutNul = (json: string) => json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');

// eslint-disable-next-line no-control-regex -- the NUL character is what text columns refuse.
const noNul = (text: string) => text.replace(/\u0000/g, '\ufffd');

export function createWebhookDeliveryStore(pool: Pool): WebhookDeliveryStore {
  return {
    async record(d) {
      const r = await pool.query(
        `INSERT INTO github_webhook_deliveries
           (delivery_id, event, action, installation_id, repository, payload)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (delivery_id) DO NOTHING`,
        [
          d.deliveryId,
          d.event,
          d.action && noNul(d.action),
          d.installationId,
          d.repository && noNul(d.repository),
          withoutNul(d.payload),
        ],
      );
      return r.rowCount === 1;
    },
    async markHandled(deliveryId, outcome) {
      await pool.query(
        'UPDATE github_webhook_deliveries SET handled_at = now(), outcome = $2 WHERE delivery_id = $1',
        [deliveryId, outcome.slice(0, 500)],
      );
    },
    async unhandled(before, limit) {
      const { rows } = await pool.query<{ delivery_id: string; event: string; payload: unknown }>(
        `SELECT delivery_id, event, payload FROM github_webhook_deliveries
         WHERE handled_at IS NULL AND received_at < $1 ORDER BY received_at LIMIT $2`,
        [before, limit],
      );
      return rows.map((r) => ({ deliveryId: r.delivery_id, event: r.event, payload: r.payload }));
    },
    async storedIds(deliveryIds) {
      if (deliveryIds.length === 0) return new Set();
      const { rows } = await pool.query<{ delivery_id: string }>(
        'SELECT delivery_id FROM github_webhook_deliveries WHERE delivery_id = ANY($1::text[])',
        [[...deliveryIds]],
      );
      return new Set(rows.map((r) => r.delivery_id));
    },
    async prune(before, limit) {
      const r = await pool.query(
        `DELETE FROM github_webhook_deliveries WHERE delivery_id IN (
           SELECT delivery_id FROM github_webhook_deliveries WHERE received_at < $1
           ORDER BY received_at LIMIT $2)`,
        [before, limit],
      );
      return r.rowCount ?? 0;
    },
    async listing(appId) {
      const { rows } = await pool.query<{
        listed_through: Date;
        resume_cursor: string | null;
        resume_through: Date | null;
      }>(
        'SELECT listed_through, resume_cursor, resume_through FROM github_delivery_listings WHERE app_id = $1',
        [appId],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        listedThrough: row.listed_through,
        resume:
          row.resume_cursor !== null && row.resume_through !== null
            ? { cursor: row.resume_cursor, through: row.resume_through }
            : null,
      };
    },
    async saveListing(appId, listing) {
      await pool.query(
        `INSERT INTO github_delivery_listings (app_id, listed_through, resume_cursor, resume_through)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (app_id) DO UPDATE SET listed_through = EXCLUDED.listed_through,
           resume_cursor = EXCLUDED.resume_cursor, resume_through = EXCLUDED.resume_through, updated_at = now()`,
        [appId, listing.listedThrough, listing.resume?.cursor ?? null, listing.resume?.through ?? null],
      );
    },
  };
}
