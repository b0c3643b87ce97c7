/**
 * Wire schemas of the webhook administration endpoints (/v1/webhooks/*), railyard's own: Trunk manages
 * its webhooks in Svix's portal, so there is no Trunk shape to follow. camelCase like the merge-queue
 * area. The secret appears in exactly one schema, the answer to a creation.
 */
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../webhooks';
import { withExample } from './examples';

export const EventType = z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]], {
  error: `must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
});

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const Url = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .regex(NO_CONTROL, { message: 'must not contain control characters' })
  .describe('http(s) URL the events are POSTed to.');
const EventTypes = z
  .array(EventType)
  .max(WEBHOOK_EVENT_TYPES.length)
  .describe('Event types to send; empty means every type.');
// PostgreSQL text cannot hold NUL: refuse it here (400) rather than fail the insert (500).
// eslint-disable-next-line no-control-regex
const NO_NUL = /^[^\u0000]*$/;
const Description = z.string().trim().max(500).regex(NO_NUL, { message: 'must not contain NUL characters' });

// A receiver's URL in shape; a host that does not resolve yet is accepted (url-policy.ts).
export const CreateSubscriptionRequest = withExample(
  z.strictObject({
    url: Url,
    eventTypes: EventTypes.default([]),
    description: Description.default(''),
    enabled: z.boolean().default(true),
  }),
  {
    url: 'https://hooks.example.com/railyard',
    eventTypes: ['pull_request.merged', 'pull_request.failed'],
    description: 'Merged and failed PRs to the team channel',
  },
);

export const UpdateSubscriptionRequest = withExample(
  z.strictObject({
    url: Url.optional(),
    eventTypes: EventTypes.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional(),
  }),
  { eventTypes: ['pull_request.failed'], enabled: true },
);

export const Subscription = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(EventType),
  enabled: z.boolean(),
  createdAt: z.string().describe('ISO-8601'),
  updatedAt: z.string().describe('ISO-8601'),
});

export const CreatedSubscription = Subscription.extend({
  secret: z
    .string()
    .startsWith('whsec_')
    .describe('The signing secret (Svix format). Shown only in this answer: store it now.'),
});

export const SubscriptionList = z.object({ subscriptions: z.array(Subscription) });

// An id in shape: a subscription's real id is in the answer to its creation.
export const SubscriptionParams = z.object({
  id: z.uuid().meta({ example: '7d0e8c52-3f4b-4a51-9c1e-2b6f0a9d4e13' }),
});

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed', 'cancelled']);

export const DeliveryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({ example: 20 }),
  cursor: z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/, { message: 'must be a cursor from an earlier page' })
    .optional(),
  status: DeliveryStatus.optional().meta({ example: 'failed' }),
});

export const Delivery = z.object({
  id: z.string().describe('Also the svix-id header of every attempt.'),
  subscriptionId: z.uuid(),
  eventType: EventType,
  status: DeliveryStatus,
  attemptCount: z.number().int(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const DeliveryPage = z.object({
  deliveries: z.array(Delivery),
  nextCursor: z.string().optional().describe('Absent on the last page.'),
});

export const Attempt = z.object({
  attempt: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable().describe('The first KiB of the answer.'),
});

export const DeliveryDetail = Delivery.extend({
  payload: z.record(z.string(), z.unknown()).describe('The body that was sent.'),
  attempts: z.array(Attempt),
});

export const DeliveryParams = z.object({
  id: z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/, { message: 'must be a delivery id (msg_…)' })
    .meta({ example: 'msg_6f1d2c3b4a5e6f708192a3b4c5d6e7f8' }),
});

export const EventTypeList = z.object({ eventTypes: z.array(EventType) });
