/**
 * The delivery records: one row per (subscription, event), one row per attempt.
 *
 * Invariants:
 * - `recordDeliveries` is idempotent: the delivery id is derived in SQL from (subscription, event key),
 *   and a second insert of the same pair does nothing. It answers the ids still `pending` among the
 *   given events, new or not, so a caller that crashed between recording and starting their
 *   workflows starts them on its retry.
 * - Only enabled subscriptions of the event's organisation whose filter names the type (or is empty)
 *   get a delivery; the subscription's state at event time decides.
 * - `recordAttempt` numbers attempts 1, 2, 3… per delivery in the same statement that counts them,
 *   and marks the delivery `succeeded` on a 2xx; nothing moves a delivery out of a final status.
 */
import type { Pool, PoolClient } from 'pg';
import type { OutgoingEvent } from '../event-types';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface DeliveryToSend {
  id: string;
  status: DeliveryStatus;
  payload: string;
  url: string;
  secret: string;
  enabled: boolean;
}

const EVENTS = `jsonb_to_recordset($1::jsonb) AS ev(organisation_id uuid, key text, type text, payload text)`;
const MATCHING = `webhook_subscriptions s ON s.organisation_id = ev.organisation_id AND s.enabled
  AND (cardinality(s.event_types) = 0 OR ev.type = ANY (s.event_types))`;

export async function recordDeliveries(
  db: Pool | PoolClient,
  events: readonly OutgoingEvent[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const json = JSON.stringify(
    events.map((e) => ({
      organisation_id: e.organisationId,
      key: e.key,
      type: e.type,
      payload: JSON.stringify(e.payload),
    })),
  );
  await db.query(
    `INSERT INTO webhook_deliveries (id, subscription_id, organisation_id, event_key, event_type, payload)
     SELECT 'msg_' || substr(encode(sha256(convert_to(s.id::text || '/' || ev.key, 'UTF8')), 'hex'), 1, 32),
            s.id, ev.organisation_id, ev.key, ev.type, ev.payload
       FROM ${EVENTS} JOIN ${MATCHING}
      ORDER BY 1
     ON CONFLICT (subscription_id, event_key) DO NOTHING`,
    [json],
  );
  const { rows } = await db.query<{ id: string }>(
    `SELECT DISTINCT d.id, d.created_at FROM ${EVENTS}
       JOIN webhook_subscriptions s ON s.organisation_id = ev.organisation_id
       JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.event_key = ev.key
      WHERE d.status = 'pending' ORDER BY d.created_at, d.id`,
    [json],
  );
  return rows.map((r) => r.id);
}

export async function loadDeliveryToSend(pool: Pool, id: string): Promise<DeliveryToSend | null> {
  const { rows } = await pool.query<DeliveryToSend>(
    `SELECT d.id, d.status, d.payload, s.url, s.secret, s.enabled
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** Records one attempt; answers its number (0 when the delivery no longer exists). */
export async function recordAttempt(pool: Pool, id: string, attempt: AttemptRecord): Promise<number> {
  const { rows } = await pool.query<{ attempt: number }>(
    `WITH d AS (
       UPDATE webhook_deliveries SET attempts = attempts + 1,
         status = CASE WHEN $2 AND status = 'pending' THEN 'succeeded' ELSE status END,
         finished_at = CASE WHEN $2 AND status = 'pending' THEN now() ELSE finished_at END
       WHERE id = $1 RETURNING attempts)
     INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body)
     SELECT $1, d.attempts, $3, $4, $5, $6, $7 FROM d RETURNING attempt`,
    [
      id,
      isSuccess(attempt.statusCode),
      attempt.startedAt,
      Math.round(attempt.durationMs),
      attempt.statusCode,
      attempt.error,
      attempt.responseBody,
    ],
  );
  return rows[0]?.attempt ?? 0;
}

/** Moves a pending delivery to a final status; a finished one keeps the status it has. */
export async function finishDelivery(pool: Pool, id: string, status: 'failed' | 'cancelled'): Promise<void> {
  await pool.query(
    `UPDATE webhook_deliveries SET status = $2, finished_at = now() WHERE id = $1 AND status = 'pending'`,
    [id, status],
  );
}
