/**
 * The delivery activities the webhook delivery workflow runs, adapters over webhooks/delivery.ts
 * (loading or skipping a delivery, signing and posting it, what counts as delivered, recording the
 * attempt: the rules are there).
 *
 * - `attemptWebhook` makes one attempt at the receiver and answers what it did as data;
 * - `recordWebhookAttempt` stores an `unrecorded` attempt;
 * - `finishWebhookDelivery` marks a delivery `failed` once its budget ran out.
 *
 * Here is only what is Temporal's: our own PostgreSQL failing (WebhookStoreUnavailable) becomes a
 * retryable failure of type WEBHOOK_FAILURE.storeUnavailable, which the workflow retries without
 * limit and without counting against the receiver.
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  createWebhookDelivery,
  WebhookStoreUnavailable,
  type WebhookDeliveryDeps,
} from '../webhooks/delivery';
import { WEBHOOK_FAILURE, type AttemptOutcome, type AttemptRecordData } from '../webhooks/types';

export type DeliveryActivityDeps = WebhookDeliveryDeps;

interface AttemptInput {
  deliveryId: string;
  requestTimeoutMs: number;
}

/** Runs `work`; our own PostgreSQL failing becomes the retryable type the workflow does not count. */
async function storeRetryable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WebhookStoreUnavailable)
      throw ApplicationFailure.retryable(err.message, WEBHOOK_FAILURE.storeUnavailable);
    throw err;
  }
}

export function createDeliveryActivities(deps: DeliveryActivityDeps) {
  const delivery = createWebhookDelivery(deps);
  return {
    async attemptWebhook(input: AttemptInput): Promise<AttemptOutcome> {
      return storeRetryable(() => delivery.attempt(input));
    },

    async recordWebhookAttempt(input: { deliveryId: string; record: AttemptRecordData }): Promise<number> {
      return storeRetryable(() => delivery.record(input.deliveryId, input.record));
    },

    async finishWebhookDelivery(input: { deliveryId: string; status: 'failed' }): Promise<void> {
      await storeRetryable(() => delivery.finish(input.deliveryId, input.status));
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
