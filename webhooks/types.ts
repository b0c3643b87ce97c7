/**
 * Plain data that crosses the workflow boundary for webhook delivery: the delivery workflow's input
 * and the activities' inputs and results. The workflow imports these types only.
 */

/**
 * How a delivery is retried when the receiver fails: the pause after the n-th failed attempt is
 * `initialIntervalMs × backoffCoefficient^(n−1)`, at most `maximumIntervalMs`. Only attempts that reached
 * the receiver count against `maximumAttempts`; our own PostgreSQL being unreachable does not.
 */
export interface DeliveryRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  /** Attempts at the receiver in all, the first included; then the delivery is `failed`. */
  maximumAttempts: number;
  /** The deadline of one HTTP attempt (the activity's start-to-close is a little longer). */
  requestTimeoutMs: number;
  /**
   * The longest pause between retries while our own PostgreSQL is unreachable (not counted against
   * `maximumAttempts`; retried until it answers). Default 30 s.
   */
  storeMaximumIntervalMs?: number;
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

/** What the receiver made of one attempt. */
export type ReceiverVerdict =
  | { kind: 'delivered'; statusCode: number }
  /** A non-2xx answer, a timeout or a connection error: retried while the budget lasts. */
  | { kind: 'failed'; error: string }
  /** The URL policy refused the address: never retried. */
  | { kind: 'refused'; error: string };

/** One attempt as stored in `webhook_attempts`, in a shape that crosses the workflow boundary. */
export interface AttemptRecordData {
  startedAtMs: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/**
 * What `attemptWebhook` answers. `unrecorded`: the request was made but PostgreSQL failed when the
 * attempt was to be recorded; the workflow records it with `recordWebhookAttempt` (retried until
 * PostgreSQL answers) instead of sending the request again.
 */
export type AttemptOutcome =
  | { kind: 'skipped'; why: 'gone' | 'disabled' | 'finished' }
  | { kind: 'attempted'; verdict: ReceiverVerdict; attempt: number }
  | { kind: 'unrecorded'; verdict: ReceiverVerdict; record: AttemptRecordData };

/** The failure types the delivery activities throw. */
export const WEBHOOK_FAILURE = {
  /** Our own PostgreSQL could not be read or written: retried, never counted against the receiver. */
  storeUnavailable: 'WebhookStoreUnavailable',
} as const;
