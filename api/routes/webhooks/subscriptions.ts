/**
 * Webhook subscriptions: create, list, read, update, delete, under /v1/webhooks/subscriptions.
 *
 * Rules: the signing secret is in the creation answer and nowhere else; a URL must pass the URL
 * policy (http(s) only; no private or loopback address unless the operator allows it) or the request
 * is a 400 naming the field; another organisation's subscription is a 404 like a missing one; an
 * organisation at its subscription limit gets a 409 naming the limit and its setting (409, as for
 * every "too many X for this organisation": deleting one helps, waiting does not).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkWebhookUrlResolved, SubscriptionLimitError, WEBHOOK_EVENT_TYPES } from '../../../webhooks';
import { badRequest, conflict, notFound } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import {
  CreatedSubscription,
  CreateSubscriptionRequest,
  EventTypeList,
  Subscription,
  SubscriptionList,
  SubscriptionParams,
  UpdateSubscriptionRequest,
} from '../../schemas/webhooks';
import type { WebhookApiDeps } from './deps';
import { subscriptionWire } from './wire';

const tags = ['webhooks'];

export const subscriptionNotFound = (id: string) => notFound(`Webhook subscription ${id} was not found.`);

export const subscriptionLimitReached = (limit: number) =>
  conflict(
    `Your organisation already has ${limit} webhook subscriptions, the most it may have; delete one or ask your railyard operator to raise RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION.`,
  );

export function subscriptionRoutes(deps: WebhookApiDeps) {
  const checkedUrl = async (url: string): Promise<string> => {
    const verdict = await checkWebhookUrlResolved(url, deps.allowPrivateUrls, deps.lookup);
    if (!verdict.ok) throw badRequest(`Field 'url' ${verdict.reason}.`);
    return url;
  };

  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/webhooks/event-types',
      {
        schema: {
          tags,
          summary: 'The event types a subscription can ask for.',
          response: { 200: EventTypeList },
        },
      },
      () => ({ eventTypes: [...WEBHOOK_EVENT_TYPES] }),
    );

    r.post(
      '/webhooks/subscriptions',
      {
        schema: {
          tags,
          summary: 'Subscribe a URL to events; the answer holds the signing secret, shown this once.',
          body: CreateSubscriptionRequest,
          response: { 201: CreatedSubscription },
        },
      },
      async (request, reply) => {
        const organisation = organisationOf(request);
        const url = await checkedUrl(request.body.url);
        try {
          const { subscription, secret } = await deps.subscriptions.create(organisation.id, {
            ...request.body,
            url,
          });
          return reply.code(201).send({ ...subscriptionWire(subscription), secret });
        } catch (err) {
          if (err instanceof SubscriptionLimitError) throw subscriptionLimitReached(err.limit);
          throw err;
        }
      },
    );

    r.get(
      '/webhooks/subscriptions',
      { schema: { tags, summary: "The organisation's subscriptions.", response: { 200: SubscriptionList } } },
      async (request) => ({
        subscriptions: (await deps.subscriptions.list(organisationOf(request).id)).map(subscriptionWire),
      }),
    );

    r.get(
      '/webhooks/subscriptions/:id',
      {
        schema: {
          tags,
          summary: 'One subscription (without its secret).',
          params: SubscriptionParams,
          response: { 200: Subscription },
        },
      },
      async (request) => {
        const found = await deps.subscriptions.get(organisationOf(request).id, request.params.id);
        if (!found) throw subscriptionNotFound(request.params.id);
        return subscriptionWire(found);
      },
    );

    r.patch(
      '/webhooks/subscriptions/:id',
      {
        schema: {
          tags,
          summary: 'Change URL, event types, description or enabled; omitted fields are unchanged.',
          params: SubscriptionParams,
          body: UpdateSubscriptionRequest,
          response: { 200: Subscription },
        },
      },
      async (request) => {
        const patch = request.body;
        if (patch.url !== undefined) await checkedUrl(patch.url);
        const updated = await deps.subscriptions.update(organisationOf(request).id, request.params.id, patch);
        if (!updated) throw subscriptionNotFound(request.params.id);
        return subscriptionWire(updated);
      },
    );

    r.delete(
      '/webhooks/subscriptions/:id',
      {
        schema: {
          tags,
          summary: 'Delete a subscription with its delivery records; pending deliveries are dropped.',
          params: SubscriptionParams,
          response: { 204: z.null().describe('Deleted; no body.') },
        },
      },
      async (request, reply) => {
        const removed = await deps.subscriptions.remove(organisationOf(request).id, request.params.id);
        if (!removed) throw subscriptionNotFound(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
