/**
 * The delivery activities the webhook delivery workflow runs.
 *
 * `deliverWebhook` makes one attempt: it signs the stored payload afresh (new timestamp, same id),
 * POSTs it, records the attempt (status code, duration, error), and answers on a 2xx. Anything else
 * throws, so Temporal retries it with the workflow's backoff; a URL the policy refuses throws a
 * non-retryable failure. It is idempotent: a delivery that already finished is not sent again.
 * `finishWebhookDelivery` marks a delivery `failed` once its retries ran out.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from 'pg';
import { finishDelivery, loadDeliveryToSend, recordAttempt } from './deliveries';
import { postWebhook, type PostResult } from './http-post';
import { svixHeaders } from './signing';
import { WEBHOOK_FAILURE, type DeliveryOutcome } from './types';

export interface DeliveryActivityDeps {
  pool: Pool;
  /** RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: allow receivers on private and loopback addresses. */
  allowPrivateWebhookUrls: boolean;
  userAgent?: string;
  now?: () => number;
}

function errorOf(result: PostResult): string | null {
  switch (result.kind) {
    case 'answered':
      return result.statusCode >= 200 && result.statusCode < 300
        ? null
        : `The receiver answered HTTP ${result.statusCode}.`;
    case 'refused':
      return result.reason;
    case 'unreachable':
      return result.error;
  }
}

export function createDeliveryActivities(deps: DeliveryActivityDeps) {
  const now = deps.now ?? Date.now;
  return {
    async deliverWebhook(input: { deliveryId: string; requestTimeoutMs: number }): Promise<DeliveryOutcome> {
      const delivery = await loadDeliveryToSend(deps.pool, input.deliveryId);
      if (!delivery) return { kind: 'skipped', why: 'gone' };
      if (delivery.status !== 'pending') return { kind: 'skipped', why: 'finished' };
      if (!delivery.enabled) {
        await finishDelivery(deps.pool, delivery.id, 'cancelled');
        return { kind: 'skipped', why: 'disabled' };
      }
      const started = now();
      const headers = svixHeaders(delivery.secret, delivery.id, Math.floor(started / 1000), delivery.payload);
      const result = await postWebhook(delivery.url, delivery.payload, headers, {
        timeoutMs: input.requestTimeoutMs,
        allowPrivate: deps.allowPrivateWebhookUrls,
        userAgent: deps.userAgent ?? 'railyard-webhooks',
      });
      const error = errorOf(result);
      const statusCode = result.kind === 'answered' ? result.statusCode : null;
      const attempt = await recordAttempt(deps.pool, delivery.id, {
        startedAt: new Date(started),
        durationMs: now() - started,
        statusCode,
        error,
        responseBody: result.kind === 'answered' ? result.body : null,
      });
      switch (result.kind) {
        case 'answered':
          if (error === null) return { kind: 'delivered', statusCode: result.statusCode, attempt };
          throw ApplicationFailure.retryable(error, WEBHOOK_FAILURE.rejected);
        case 'refused':
          throw ApplicationFailure.nonRetryable(result.reason, WEBHOOK_FAILURE.refused);
        case 'unreachable':
          throw ApplicationFailure.retryable(result.error, WEBHOOK_FAILURE.unreachable);
      }
    },

    async finishWebhookDelivery(input: { deliveryId: string; status: 'failed' }): Promise<void> {
      await finishDelivery(deps.pool, input.deliveryId, input.status);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
