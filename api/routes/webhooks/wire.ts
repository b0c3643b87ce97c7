/** Domain records → the wire shapes of api/schemas/webhooks.ts (ISO times, camelCase). */
import type { z } from 'zod';
import type { Delivery, DeliveryDetail, Subscription } from '../../../webhooks';
import type * as W from '../../schemas/webhooks';

export const subscriptionWire = (s: Subscription): z.infer<typeof W.Subscription> => ({
  id: s.id,
  url: s.url,
  description: s.description,
  eventTypes: s.eventTypes,
  enabled: s.enabled,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

export const deliveryWire = (d: Delivery): z.infer<typeof W.Delivery> => ({
  id: d.id,
  subscriptionId: d.subscriptionId,
  eventType: d.eventType,
  status: d.status,
  attemptCount: d.attempts,
  createdAt: d.createdAt.toISOString(),
  finishedAt: d.finishedAt?.toISOString() ?? null,
});

export const deliveryDetailWire = (d: DeliveryDetail): z.infer<typeof W.DeliveryDetail> => ({
  ...deliveryWire(d),
  payload: JSON.parse(d.payload) as Record<string, unknown>,
  attempts: d.attemptLog.map((a) => ({
    attempt: a.attempt,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    error: a.error,
    responseBody: a.responseBody,
  })),
});
