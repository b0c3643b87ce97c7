/**
 * The delivery activities the webhook delivery workflow runs.
 *
 * `attemptWebhook` makes one attempt at the receiver: it signs the stored payload afresh (new
 * timestamp, same id), POSTs it, records the attempt (status code, duration, error) and answers what
 * the receiver did as data; the workflow keeps the receiver's retry budget.
 *
 * Rules:
 * - PostgreSQL failing is never the receiver's fault. Before the request (reading the delivery) it
 *   throws `WebhookStoreUnavailable`, which the workflow retries without limit and without counting;
 *   after the request (recording it) it answers `unrecorded` with the attempt, so the workflow records
 *   it once PostgreSQL is back instead of sending the request again.
 * - Idempotent: a delivery that already finished, was deleted or whose subscription is disabled is not
 *   sent (a disabled one ends `cancelled`).
 *
 * `recordWebhookAttempt` stores an `unrecorded` attempt; `finishWebhookDelivery` marks a delivery
 * `failed` once its budget ran out.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from '../stores/db';
import {
  finishDelivery,
  loadDeliveryToSend,
  recordAttempt,
  type DeliveryToSend,
} from '../webhooks/store/deliveries';
import { postWebhook, type PostResult } from '../webhooks/http-post';
import { svixHeaders } from '../webhooks/signing';
import {
  WEBHOOK_FAILURE,
  type AttemptOutcome,
  type AttemptRecordData,
  type ReceiverVerdict,
} from '../webhooks/types';

export interface DeliveryActivityDeps {
  pool: Pool;
  /** RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: allow receivers on private and loopback addresses. */
  allowPrivateWebhookUrls: boolean;
  userAgent?: string;
  now?: () => number;
}

interface AttemptInput {
  deliveryId: string;
  requestTimeoutMs: number;
}

type Skipped = Extract<AttemptOutcome, { kind: 'skipped' }>;

function verdictOf(result: PostResult): ReceiverVerdict {
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

/** Runs a PostgreSQL step; its failure becomes the retryable type the workflow does not count. */
async function store<T>(step: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw ApplicationFailure.retryable(
      `PostgreSQL could not ${step}: ${err instanceof Error ? err.message : String(err)}`,
      WEBHOOK_FAILURE.storeUnavailable,
    );
  }
}

const asRow = (r: AttemptRecordData) => ({
  startedAt: new Date(r.startedAtMs),
  durationMs: r.durationMs,
  statusCode: r.statusCode,
  error: r.error,
  responseBody: r.responseBody,
});

export function createDeliveryActivities(deps: DeliveryActivityDeps) {
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
    async attemptWebhook(input: AttemptInput): Promise<AttemptOutcome> {
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

    async recordWebhookAttempt(input: { deliveryId: string; record: AttemptRecordData }): Promise<number> {
      return store('record the attempt', () =>
        recordAttempt(deps.pool, input.deliveryId, asRow(input.record)),
      );
    },

    async finishWebhookDelivery(input: { deliveryId: string; status: 'failed' }): Promise<void> {
      await store('finish the delivery', () => finishDelivery(deps.pool, input.deliveryId, input.status));
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
