/**
 * Delivery records: a subscription's deliveries (newest first, keyset pages, optional status filter)
 * and one delivery with its payload and every attempt (status code, duration, error).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getDelivery, listDeliveries } from '../../../webhooks';
import { badRequest, notFound } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import {
  DeliveryDetail,
  DeliveryPage,
  DeliveryParams,
  DeliveryQuery,
  SubscriptionParams,
} from '../../schemas/webhooks';
import type { WebhookApiDeps } from './deps';
import { subscriptionNotFound } from './subscriptions';
import { deliveryDetailWire, deliveryWire } from './wire';

const tags = ['webhooks'];

export function deliveryRoutes(deps: WebhookApiDeps) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/webhooks/subscriptions/:id/deliveries',
      {
        schema: {
          tags,
          summary: "A subscription's deliveries, newest first.",
          params: SubscriptionParams,
          querystring: DeliveryQuery,
          response: { 200: DeliveryPage },
        },
      },
      async (request) => {
        const organisation = organisationOf(request);
        const { id } = request.params;
        if (!(await deps.subscriptions.get(organisation.id, id))) throw subscriptionNotFound(id);
        const page = await listDeliveries(deps.pool, organisation.id, id, {
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
          status: request.query.status ?? null,
        });
        switch (page.kind) {
          case 'bad_cursor':
            throw badRequest("Field 'cursor' must be a cursor from an earlier page of this subscription.");
          case 'page':
            return {
              deliveries: page.deliveries.map(deliveryWire),
              ...(page.nextCursor === null ? {} : { nextCursor: page.nextCursor }),
            };
        }
      },
    );

    r.get(
      '/webhooks/deliveries/:id',
      {
        schema: {
          tags,
          summary: 'One delivery: its payload and every attempt.',
          params: DeliveryParams,
          response: { 200: DeliveryDetail },
        },
      },
      async (request) => {
        const delivery = await getDelivery(deps.pool, organisationOf(request).id, request.params.id);
        if (!delivery) throw notFound(`Webhook delivery ${request.params.id} was not found.`);
        return deliveryDetailWire(delivery);
      },
    );
  };
}
