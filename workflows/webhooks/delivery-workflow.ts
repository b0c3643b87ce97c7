/**
 * webhookDeliveryWorkflow: the durable delivery of one webhook (one delivery row). Its id is
 * `webhook/<delivery id>`, started once by whoever recorded the delivery; a conflict on start means it
 * is already under way.
 *
 * The retries are Temporal's: `deliverWebhook` makes one attempt and throws on anything but a 2xx, and
 * the activity's retry policy (exponential backoff, bounded attempts) spaces the next ones. Every
 * attempt is recorded by the activity itself. When the retries run out, or the URL is refused, the
 * delivery is marked `failed`. The workflow holds no state of its own beyond that.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/webhooks/deliver';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../activities/webhooks/types';

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { retry } = input;
  const { deliverWebhook } = proxyActivities<DeliveryActivities>({
    // The HTTP deadline plus time to read the delivery and record the attempt.
    startToCloseTimeout: retry.requestTimeoutMs + 10_000,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: ['WebhookUrlRefused'],
    },
  });
  const { finishWebhookDelivery } = proxyActivities<DeliveryActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  try {
    return await deliverWebhook({ deliveryId: input.deliveryId, requestTimeoutMs: retry.requestTimeoutMs });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await finishWebhookDelivery({ deliveryId: input.deliveryId, status: 'failed' });
    const cause = err.cause;
    return { kind: 'failed', error: cause instanceof ApplicationFailure ? cause.message : err.message };
  }
}
