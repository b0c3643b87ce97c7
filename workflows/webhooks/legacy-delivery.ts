/**
 * The delivery as it ran before the receiver budget moved into the workflow (the
 * `webhook-receiver-budget-v1` patch): one `deliverWebhook` activity whose Temporal retry policy
 * spaced and bounded the attempts, so a PostgreSQL outage used them up too. Kept only so delivery
 * workflows recorded before the patch replay with the commands they recorded; new deliveries never
 * take this path.
 *
 * Invariant: the same commands in the same order as the code that recorded those histories.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/webhooks/deliver';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../activities/webhooks/types';

export async function legacyDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { retry } = input;
  const { deliverWebhook } = proxyActivities<DeliveryActivities>({
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
