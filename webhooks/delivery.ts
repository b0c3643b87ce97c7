/**
 * One delivery attempt of an outbound webhook, and what is stored about it.
 *
 * `attempt` loads the delivery, signs the stored payload afresh (new timestamp, same id, signing.ts),
 * POSTs it (http-post.ts), records the attempt (status code, duration, error, the start of the answer)
 * and answers what the receiver did as data; the delivery workflow keeps the receiver's retry budget.
 *
 * Rules:
 * - Idempotent: a delivery that already finished or was deleted is not sent; one whose subscription is
 *   disabled is not sent either, and ends `cancelled`.
 * - Only a 2xx answer is delivered. Another answer, a timeout or a connection error is a failure the
 *   workflow retries; an address the URL policy refuses is `refused`, never retried.
 * - PostgreSQL failing is never the receiver's fault. Before the request (reading or cancelling the
 *   delivery) it throws WebhookStoreUnavailable; after the request (recording it) `attempt` answers
 *   `unrecorded` with the attempt, so that it is recorded (`record`) once PostgreSQL is back instead of
 *   the request being sent again. `record` and `finish` throw WebhookStoreUnavailable too.
 */
import type { Pool } from '../stores/db';
import { finishDelivery, loadDeliveryToSend, recordAttempt, type DeliveryToSend } from './store/deliveries';
import { postWebhook, type PostResult } from './http-post';
import { svixHeaders } from './signing';
import { type AttemptOutcome, type AttemptRecordData, type ReceiverVerdict } from './types';

export interface WebhookDeliveryDeps {
  pool: Pool;
  /** RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: allow receivers on private and loopback addresses. */
  allowPrivateWebhookUrls: boolean;
  userAgent?: string;
  now?: () => number;
}

/** Our own PostgreSQL could not do a step of a delivery: not the receiver's fault. */
export class WebhookStoreUnavailable extends Error {
  constructor(step: string, cause: unknown) {
    super(`PostgreSQL could not ${step}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'WebhookStoreUnavailable';
  }
}

type Skipped = Extract<AttemptOutcome, { kind: 'skipped' }>;

/** What the receiver made of one POST: only a 2xx answer is delivered. */
export function verdictOf(result: PostResult): ReceiverVerdict {
  switch (result.kind) {
    case 'answered':
      return result.statusCode >= 200 && result.statusCode < 300
        ? { kind: 'delivered', statusCode: result.statusCode }
        : { kind: 'failed', error: `The receiver answered HTTP ${result.statusCode}.` };
    case 'refused':
      return { kind: 'refused', error: result.reason };
    case 'unreachable':
      return { kind: 'failed', error: result.error };
  }
}

/** Runs a PostgreSQL step; its failure becomes WebhookStoreUnavailable. */
async function store<T>(step: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new WebhookStoreUnavailable(step, err);
  }
}

const asRow = (r: AttemptRecordData) => ({
  startedAt: new Date(r.startedAtMs),
  durationMs: r.durationMs,
  statusCode: r.statusCode,
  error: r.error,
  responseBody: r.responseBody,
});

export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const now = deps.now ?? Date.now;

  /** The delivery to send, or why there is nothing to send. */
  async function load(id: string): Promise<DeliveryToSend | Skipped> {
    const delivery = await store('read the delivery', () => loadDeliveryToSend(deps.pool, id));
    if (!delivery) return { kind: 'skipped', why: 'gone' };
    if (delivery.status !== 'pending') return { kind: 'skipped', why: 'finished' };
    if (!delivery.enabled) {
      await store('cancel the delivery', () => finishDelivery(deps.pool, delivery.id, 'cancelled'));
      return { kind: 'skipped', why: 'disabled' };
    }
    return delivery;
  }

  async function post(delivery: DeliveryToSend, timeoutMs: number) {
    const started = now();
    const headers = svixHeaders(delivery.secret, delivery.id, Math.floor(started / 1000), delivery.payload);
    const result = await postWebhook(delivery.url, delivery.payload, headers, {
      timeoutMs,
      allowPrivate: deps.allowPrivateWebhookUrls,
      userAgent: deps.userAgent ?? 'railyard-webhooks',
    });
    const verdict = verdictOf(result);
    const record: AttemptRecordData = {
      startedAtMs: started,
      durationMs: now() - started,
      statusCode: result.kind === 'answered' ? result.statusCode : null,
      error: verdict.kind === 'delivered' ? null : verdict.error,
      responseBody: result.kind === 'answered' ? result.body : null,
    };
    return { verdict, record };
  }

  return {
    /** One attempt at the receiver, within `requestTimeoutMs`. */
    async attempt(input: { deliveryId: string; requestTimeoutMs: number }): Promise<AttemptOutcome> {
      const delivery = await load(input.deliveryId);
      if ('kind' in delivery) return delivery;
      const { verdict, record } = await post(delivery, input.requestTimeoutMs);
      try {
        const attempt = await recordAttempt(deps.pool, delivery.id, asRow(record));
        return { kind: 'attempted', verdict, attempt };
      } catch {
        return { kind: 'unrecorded', verdict, record };
      }
    },

    /** Stores an attempt `attempt` could not record; answers its number. */
    record(deliveryId: string, record: AttemptRecordData): Promise<number> {
      return store('record the attempt', () => recordAttempt(deps.pool, deliveryId, asRow(record)));
    },

    /** Ends a delivery whose retry budget ran out. */
    async finish(deliveryId: string, status: 'failed'): Promise<void> {
      await store('finish the delivery', () => finishDelivery(deps.pool, deliveryId, status));
    },
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
