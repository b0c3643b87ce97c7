/**
 * Outbound webhooks: event catalogue, payloads, signing, URL policy, subscriptions, deliveries
 * (delivery.ts; its activity adapters are activities/webhook-delivery.ts).
 */
export {
  WEBHOOK_EVENT_TYPES,
  isWebhookEventType,
  type OutgoingEvent,
  type WebhookEventType,
} from './event-types';
export {
  getDelivery,
  listDeliveries,
  type Delivery,
  type DeliveryDetail,
  type DeliveryPage,
} from './store/delivery-reads';
export type { DeliveryStatus } from './store/deliveries';
export { dispatchWebhookEvents, type WebhookDispatchDeps } from './dispatch';
export { checkWebhookUrlResolved, isPrivateAddress, type Lookup } from './url-policy';
export {
  createSubscriptionStore,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_ORGANISATION,
  SubscriptionLimitError,
  type Subscription,
  type SubscriptionStore,
} from './store/subscriptions';
export { publishTestCaseEvent, publishTestCaseEvents, type TestCaseEvent } from './test-case-events';
export { DEFAULT_RETRY_POLICY, type DeliveryRetryPolicy } from './types';
