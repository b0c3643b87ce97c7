/**
 * Reads of the delivery records for the API: a subscription's deliveries newest first, in keyset
 * pages, and one delivery with every attempt. Scoped by organisation like every other read.
 *
 * The page cursor is the id of the last delivery of the previous page: the next page starts strictly
 * after its (created_at, id), so deliveries recorded meanwhile never shift or repeat a page.
 */
import type { Pool } from 'pg';
import type { WebhookEventType } from '../event-types';
import type { DeliveryStatus } from './deliveries';

export interface Attempt {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface Delivery {
  id: string;
  subscriptionId: string;
  eventType: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface DeliveryDetail extends Delivery {
  payload: string;
  attemptLog: Attempt[];
}

export type DeliveryPage =
  { kind: 'page'; deliveries: Delivery[]; nextCursor: string | null } | { kind: 'bad_cursor' };

interface Row {
  id: string;
  subscription_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: Date;
  finished_at: Date | null;
  payload?: string;
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  eventType: r.event_type as WebhookEventType,
  status: r.status,
  attempts: r.attempts,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

const COLUMNS = 'd.id, d.subscription_id, d.event_type, d.status, d.attempts, d.created_at, d.finished_at';

export async function listDeliveries(
  pool: Pool,
  organisationId: string,
  subscriptionId: string,
  opts: { limit: number; cursor: string | null; status: DeliveryStatus | null },
): Promise<DeliveryPage> {
  if (opts.cursor !== null) {
    const { rows } = await pool.query(
      'SELECT 1 FROM webhook_deliveries WHERE id = $1 AND subscription_id = $2 AND organisation_id = $3',
      [opts.cursor, subscriptionId, organisationId],
    );
    if (rows.length === 0) return { kind: 'bad_cursor' };
  }
  const { rows } = await pool.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_deliveries d
      WHERE d.organisation_id = $1 AND d.subscription_id = $2
        AND ($3::text IS NULL OR d.status = $3)
        AND ($4::text IS NULL OR (d.created_at, d.id) <
             (SELECT c.created_at, c.id FROM webhook_deliveries c WHERE c.id = $4))
      ORDER BY d.created_at DESC, d.id DESC LIMIT $5`,
    [organisationId, subscriptionId, opts.status, opts.cursor, opts.limit + 1],
  );
  const page = rows.slice(0, opts.limit).map(toDelivery);
  const more = rows.length > opts.limit;
  return { kind: 'page', deliveries: page, nextCursor: more ? (page.at(-1)?.id ?? null) : null };
}

export async function getDelivery(
  pool: Pool,
  organisationId: string,
  id: string,
): Promise<DeliveryDetail | null> {
  const { rows } = await pool.query<Row & { payload: string }>(
    `SELECT ${COLUMNS}, d.payload FROM webhook_deliveries d WHERE d.organisation_id = $1 AND d.id = $2`,
    [organisationId, id],
  );
  const row = rows[0];
  if (!row) return null;
  const attempts = await pool.query<{
    attempt: number;
    started_at: Date;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
  }>(
    `SELECT attempt, started_at, duration_ms, status_code, error, response_body
       FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`,
    [id],
  );
  return {
    ...toDelivery(row),
    payload: row.payload,
    attemptLog: attempts.rows.map((a) => ({
      attempt: a.attempt,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      responseBody: a.response_body,
    })),
  };
}
