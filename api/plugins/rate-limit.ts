/**
 * Requests per second per organisation (@fastify/rate-limit, one fixed window per key in this
 * process's memory). The key is the authenticated organisation, so one organisation's flood never
 * spends another's budget however many keys or addresses either uses; requests without a key (the
 * public routes: /readyz, /metrics, the OpenAPI document) are counted per client address.
 *
 * Invariants: registered after the auth hook. The plugin adds its check as a route-level onRequest
 * hook, and Fastify runs route-level hooks after the instance-level ones, so `request.organisation`
 * is already set when the key is chosen; a request whose key is refused never reaches it (401 first).
 * /healthz is never limited: it must answer a load balancer however busy the service is. Over the
 * limit the answer is a LimitExceeded (429, Retry-After, one sentence).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LimitExceeded, seconds, windowText } from './limit-exceeded';

export interface RateLimitSettings {
  /** Requests each organisation (or unauthenticated address) may send per window. */
  readonly max: number;
  /** Length of the window; 1000 for "requests per second". */
  readonly windowMs: number;
}

/** Default of RAILYARD_ORG_REQUESTS_PER_SECOND. */
export const DEFAULT_REQUESTS_PER_SECOND = 100;

const UNLIMITED_ROUTES = new Set(['/healthz']);

export const rateLimitKey = (request: FastifyRequest): string =>
  request.organisation ? `org:${request.organisation.id}` : `ip:${request.ip}`;

export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: rateLimitKey,
    allowList: (request) => UNLIMITED_ROUTES.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (request, context) => {
      const after = Math.max(1, Math.ceil(context.ttl / 1000));
      const who = request.organisation
        ? `Organisation ${request.organisation.slug}`
        : `Address ${request.ip}`;
      return new LimitExceeded(
        `${who} sent more than ${context.max} requests in ${windowText(settings.windowMs)}; retry after ${seconds(after)}.`,
        after,
      );
    },
  });
}
