/**
 * Requests per second (@fastify/rate-limit, one fixed window per bucket in this process's memory).
 * The figure holds for the whole deployment: each API process admits its share, the figure divided by
 * the API processes alive (`replicas`, platform/replica-census.ts), rounded up, so N processes
 * together admit at most the figure plus N - 1 per window.
 * A request is counted in exactly one bucket, so no kind of traffic can spend another's budget:
 *
 * | bucket            | which requests                                          | counted per        |
 * | ----------------- | ------------------------------------------------------- | ------------------ |
 * | `github-webhooks` | POST /v1/github/webhooks (signed, no key)               | client address     |
 * | `bundle-puts`     | PUT /v1/metrics/bundles/:uploadId (signed URL, no key)  | client address     |
 * | `executors`       | /v1/executor/* (executor credential, no key)            | client address     |
 * | `fork`            | a fork header instead of a key (public id, forked run)  | client address     |
 * | `organisation`    | a valid API key                                         | organisation       |
 * | `address`         | everything else without a key (/readyz, /metrics, docs) | client address     |
 *
 * So one organisation's flood never spends another's budget however many keys or addresses either
 * uses; an outsider holding a repository's public id spends its own address's `fork` budget, never
 * the owner's `organisation` one; and a flood of unsigned webhooks or bundle PUTs cannot starve
 * GitHub's deliveries or remote executors' content fetches, nor the reverse. The client address is
 * the real one behind a trusted proxy (RAILYARD_TRUST_PROXY, trust-proxy.ts).
 *
 * Invariants: registered after the auth hook. The plugin adds its check as a route-level onRequest
 * hook, and Fastify runs route-level hooks after the instance-level ones, so `request.organisation`
 * and `request.fork` are already set when the bucket is chosen; a request whose key is refused never
 * reaches it (401 first). /healthz is never limited: it must answer a load balancer however busy the
 * service is. Over the limit the answer is a LimitExceeded (429, Retry-After, one sentence).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LimitExceeded, seconds, windowText } from './limit-exceeded';

export interface RateLimitSettings {
  /** Requests each bucket (an organisation, or an address in one kind of traffic) may send per window. */
  readonly max: number;
  /** Length of the window; 1000 for "requests per second". */
  readonly windowMs: number;
  /** API processes alive, this one included (platform/replica-census.ts); 1 when absent. */
  readonly replicas?: () => number;
}

/** This process's share of a deployment-wide figure: at least 1, rounded up. */
export function shareOf(max: number, replicas: number): number {
  return Math.max(1, Math.ceil(max / Math.max(1, replicas)));
}

/** Default of RAILYARD_ORG_REQUESTS_PER_SECOND. */
export const DEFAULT_REQUESTS_PER_SECOND = 100;

export type RateBucket =
  'github-webhooks' | 'bundle-puts' | 'executors' | 'fork' | 'organisation' | 'address';

const UNLIMITED_ROUTES = new Set(['/healthz']);
const GITHUB_WEBHOOKS = '/v1/github/webhooks';
const BUNDLE_PUT = '/v1/metrics/bundles/:uploadId';
const EXECUTOR_PREFIX = '/v1/executor/';

export function bucketOf(request: FastifyRequest): RateBucket {
  const route = request.routeOptions.url ?? '';
  if (route === GITHUB_WEBHOOKS) return 'github-webhooks';
  if (route === BUNDLE_PUT) return 'bundle-puts';
  if (route.startsWith(EXECUTOR_PREFIX)) return 'executors';
  // Before the organisation: a public id sets the owner's organisation, but its budget is the caller's.
  // Both are decorated only when their plugin is registered; undefined then.
  if (request.fork) return 'fork';
  if (request.organisation) return 'organisation';
  return 'address';
}

export function rateLimitKey(request: FastifyRequest): string {
  const bucket = bucketOf(request);
  switch (bucket) {
    case 'organisation':
      return `org:${request.organisation?.id ?? ''}`;
    case 'address':
      return `ip:${request.ip}`;
    case 'github-webhooks':
    case 'bundle-puts':
    case 'executors':
    case 'fork':
      return `${bucket}:${request.ip}`;
  }
}

/** What the refusal says was sent too often. */
function whatWasSent(bucket: RateBucket): string {
  switch (bucket) {
    case 'organisation':
    case 'address':
      return 'requests';
    case 'github-webhooks':
      return 'GitHub webhook deliveries';
    case 'bundle-puts':
      return 'bundle uploads';
    case 'executors':
      return 'executor requests';
    case 'fork':
      return 'requests with a fork header instead of an API key';
  }
}

export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: () => shareOf(settings.max, settings.replicas?.() ?? 1),
    timeWindow: settings.windowMs,
    keyGenerator: rateLimitKey,
    allowList: (request) => UNLIMITED_ROUTES.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (request, context) => {
      const after = Math.max(1, Math.ceil(context.ttl / 1000));
      const bucket = bucketOf(request);
      const who =
        bucket === 'organisation' && request.organisation
          ? `Organisation ${request.organisation.slug}`
          : `Address ${request.ip}`;
      const replicas = settings.replicas?.() ?? 1;
      const split =
        replicas > 1 ? ` to this API process (the limit of ${settings.max} is split over ${replicas})` : '';
      return new LimitExceeded(
        `${who} sent more than ${context.max} ${whatWasSent(bucket)} in ${windowText(settings.windowMs)}${split}; retry after ${seconds(after)}.`,
        after,
      );
    },
  });
}
