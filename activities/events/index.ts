/**
 * createEventActivities(deps): the event-log and webhook activities the worker registers:
 * `appendTransitions` (append.ts), and `attemptWebhook`, `recordWebhookAttempt` and
 * `finishWebhookDelivery` (../webhook-delivery.ts over webhooks/delivery.ts, run by
 * workflows/webhooks/delivery-workflow.ts).
 *
 * Without `client` and `taskQueue` the log is still written but no webhook is recorded or sent.
 */
import type { Client } from '@temporalio/client';
import type { Pool } from '../../stores/db';
import { publicUrlOf } from '../../platform/public-url';
import { createDeliveryActivities } from '../webhook-delivery';
import type { DeliveryRetryPolicy } from '../../webhooks/types';
import { createAppendActivity, defaultDetailsUrl } from './append';
import { createQueueViewStore } from '../../events/store/queue-views';
import type { TransitionEvent } from '../../events/types';

export interface EventActivityDeps {
  pool: Pool;
  client?: Client;
  taskQueue?: string;
  /** RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: allow receivers on private and loopback addresses. */
  allowPrivateWebhookUrls: boolean;
  /** RAILYARD_PUBLIC_URL, the base of `http_details_url` in PR events. */
  publicUrl?: string;
  detailsUrl?: (e: TransitionEvent) => string;
  /** Overrides of the delivery retry policy (tests shorten it). */
  webhookRetry?: Partial<DeliveryRetryPolicy>;
}

export function createEventActivities(deps: EventActivityDeps) {
  return {
    ...createAppendActivity({
      pool: deps.pool,
      client: deps.client,
      taskQueue: deps.taskQueue,
      retry: deps.webhookRetry,
      views: createQueueViewStore(deps.pool),
      detailsUrl: deps.detailsUrl ?? defaultDetailsUrl(publicUrlOf(deps.publicUrl)),
      testRunLogUrl: (id) =>
        `${publicUrlOf(deps.publicUrl).replace(/\/+$/, '')}/v1/testRuns/${encodeURIComponent(id)}/log`,
    }),
    ...createDeliveryActivities({ pool: deps.pool, allowPrivateWebhookUrls: deps.allowPrivateWebhookUrls }),
  };
}

export type EventActivities = ReturnType<typeof createEventActivities>;
export type { AppendResult } from './append';
export type { AppendTransitionsInput, TransitionEvent } from '../../events/types';
