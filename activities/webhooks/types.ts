/**
 * Plain data that crosses the workflow boundary for webhook delivery: the delivery workflow's input
 * and the activities' inputs and results. The workflow imports these types only.
 */

/** How a delivery is retried: Temporal's retry policy for the `deliverWebhook` activity. */
export interface DeliveryRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  /** Attempts in all, the first included; then the delivery is `failed`. */
  maximumAttempts: number;
  /** The deadline of one HTTP attempt (the activity's start-to-close is a little longer). */
  requestTimeoutMs: number;
}

/**
 * Close to Svix's schedule (immediately, then about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h): eight
 * attempts over roughly eight hours.
 */
export const DEFAULT_RETRY_POLICY: DeliveryRetryPolicy = {
  initialIntervalMs: 5_000,
  backoffCoefficient: 4,
  maximumIntervalMs: 10 * 60 * 60 * 1000,
  maximumAttempts: 8,
  requestTimeoutMs: 15_000,
};

export interface WebhookDeliveryInput {
  deliveryId: string;
  retry: DeliveryRetryPolicy;
}

export type DeliveryOutcome =
  | { kind: 'delivered'; statusCode: number; attempt: number }
  /** Nothing to send: the subscription was deleted, disabled, or the delivery already finished. */
  | { kind: 'skipped'; why: 'gone' | 'disabled' | 'finished' };

export type WebhookDeliveryResult = DeliveryOutcome | { kind: 'failed'; error: string };

/** The failure types `deliverWebhook` throws; the refused URL is the one that is not retried. */
export const WEBHOOK_FAILURE = {
  rejected: 'WebhookRejected',
  unreachable: 'WebhookUnreachable',
  refused: 'WebhookUrlRefused',
} as const;
