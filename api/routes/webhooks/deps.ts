/** What the webhook routes need; the composition root (api/server.ts) builds it. */
import type { Pool } from '../../../stores/db';
import type { Lookup, SubscriptionStore } from '../../../webhooks';

export interface WebhookApiDeps {
  pool: Pool;
  subscriptions: SubscriptionStore;
  /** RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS: accept receivers on private and loopback addresses. */
  allowPrivateUrls: boolean;
  /** DNS for the URL check at save time (tests pass a fake resolver). */
  lookup?: Lookup;
}
