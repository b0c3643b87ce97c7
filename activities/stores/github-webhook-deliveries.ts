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

export interface WebhookDeliveryStore {
  /** True when stored now; false when this delivery id was stored before. */
  record(delivery: WebhookDelivery): Promise<boolean>;
  markHandled(deliveryId: string, outcome: string): Promise<void>;
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
  };
}
