/**
 * The webhook administration area (/v1/webhooks/*): subscriptions and their delivery records.
 * Delivery itself happens in the worker (webhooks, workflows/webhooks).
 */
import type { FastifyInstance } from 'fastify';
import { deliveryRoutes } from './deliveries';
import type { WebhookApiDeps } from './deps';
import { subscriptionRoutes } from './subscriptions';
import { namedPlugin } from '../../plugins/named-plugin';

export type { WebhookApiDeps } from './deps';

export function webhookRoutes(deps: WebhookApiDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(namedPlugin('subscriptionRoutes', subscriptionRoutes(deps)));
    await app.register(namedPlugin('deliveryRoutes', deliveryRoutes(deps)));
  };
}
