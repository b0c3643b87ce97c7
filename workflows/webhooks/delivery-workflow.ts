/**
 * webhookDeliveryWorkflow: the durable delivery of one webhook (one delivery row). Its id is
 * `webhook/<delivery id>`, started once by whoever recorded the delivery; a conflict on start means it
 * is already under way.
 *
 * The receiver's retry budget lives here: `attemptWebhook` makes one attempt and answers what the
 * receiver did; after a failed one the workflow sleeps (exponential backoff, capped) and tries again,
 * until `maximumAttempts` attempts reached the receiver; then the delivery is marked `failed`. A
 * refused URL fails at once.
 *
 * Invariants:
 * - Only attempts that reached the receiver count. Our PostgreSQL being unreachable makes the
 *   activities throw `WebhookStoreUnavailable`, which Temporal retries without limit (capped backoff)
 *   inside the same attempt, so an outage of any length delays a delivery and never fails it.
 * - A request made while recording it failed is not made again: the attempt comes back `unrecorded`
 *   and is recorded by `recordWebhookAttempt` once PostgreSQL answers.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/webhook-delivery';
import type { ReceiverVerdict, WebhookDeliveryInput, WebhookDeliveryResult } from '../../webhooks/types';

const STORE_RETRY_INITIAL_INTERVAL_MS = 1_000;
const STORE_RETRY_MAXIMUM_INTERVAL_MS = 30_000;

/** The pause after the n-th failed attempt at the receiver. */
export function receiverBackoffMs(retry: WebhookDeliveryInput['retry'], n: number): number {
  return Math.min(retry.initialIntervalMs * retry.backoffCoefficient ** (n - 1), retry.maximumIntervalMs);
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { retry, deliveryId } = input;
  // No maximumAttempts: these retries are our own side failing (PostgreSQL, a worker that died).
  const storeRetry = {
    initialInterval: STORE_RETRY_INITIAL_INTERVAL_MS,
    backoffCoefficient: 2,
    // Temporal refuses a maximum below the initial interval (the workflow task would fail).
    maximumInterval: Math.max(
      STORE_RETRY_INITIAL_INTERVAL_MS,
      retry.storeMaximumIntervalMs ?? STORE_RETRY_MAXIMUM_INTERVAL_MS,
    ),
  };
  const { attemptWebhook } = proxyActivities<DeliveryActivities>({
    // The HTTP deadline plus time to read the delivery and record the attempt.
    startToCloseTimeout: retry.requestTimeoutMs + 10_000,
    retry: storeRetry,
  });
  const { recordWebhookAttempt, finishWebhookDelivery } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: '30 seconds',
    retry: storeRetry,
  });

  for (let n = 1; ; n++) {
    const outcome = await attemptWebhook({ deliveryId, requestTimeoutMs: retry.requestTimeoutMs });
    let verdict: ReceiverVerdict;
    let attempt: number;
    switch (outcome.kind) {
      case 'skipped':
        return outcome;
      case 'attempted':
        ({ verdict, attempt } = outcome);
        break;
      case 'unrecorded':
        verdict = outcome.verdict;
        attempt = await recordWebhookAttempt({ deliveryId, record: outcome.record });
        break;
    }
    switch (verdict.kind) {
      case 'delivered':
        return { kind: 'delivered', statusCode: verdict.statusCode, attempt };
      case 'refused':
        await finishWebhookDelivery({ deliveryId, status: 'failed' });
        return { kind: 'failed', error: verdict.error };
      case 'failed':
        if (n >= retry.maximumAttempts) {
          await finishWebhookDelivery({ deliveryId, status: 'failed' });
          return { kind: 'failed', error: verdict.error };
        }
        await sleep(receiverBackoffMs(retry, n));
    }
  }
}
