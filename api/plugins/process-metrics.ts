/**
 * The API process's own metrics, for the operator's Prometheus (docs/operations.md): prom-client's
 * default metrics (CPU, memory, event loop, GC), a request latency histogram per route, and the
 * outcomes of Temporal calls. Served on their own route (GET /metrics by default), separate from the
 * per-organisation merge-queue metrics.
 *
 * Invariants:
 * - One registry per ProcessMetrics, created by whoever builds the app; no module-level state, so two
 *   apps in one process (tests) never share or double-register a metric.
 * - The route label is the route pattern (`/v1/webhooks/subscriptions/:id`), never the raw URL, and
 *   `unmatched` for 404s, so label cardinality stays bounded whatever clients send.
 */
import { expositionText } from './exposition-text';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { isAppError } from '../errors';
import { isQueueClientError } from '../../queue-client';

export type TemporalCallOutcome = 'ok' | 'rejected' | 'unavailable' | 'error';

export interface ProcessMetrics {
  registry: Registry;
  observeRequest(labels: { method: string; route: string; status_code: string }, seconds: number): void;
  observeTemporalCall(call: string, outcome: TemporalCallOutcome, seconds: number): void;
}

export interface ProcessMetricsRoute {
  path: string;
  /** Reachable without an API key (the usual for a scrape target on a private network). */
  public: boolean;
}

export const DEFAULT_PROCESS_METRICS_ROUTE: ProcessMetricsRoute = { path: '/metrics', public: true };

export function createProcessMetrics(opts: { defaultMetrics?: boolean } = {}): ProcessMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'railyard_api_request_duration_seconds',
    help: 'HTTP request latency of the railyard API',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const temporalCalls = new Counter({
    name: 'railyard_api_temporal_calls_total',
    help: 'Temporal calls made by the railyard API, by call and outcome',
    labelNames: ['call', 'outcome'],
    registers: [registry],
  });
  const temporalLatency = new Histogram({
    name: 'railyard_api_temporal_call_duration_seconds',
    help: 'Latency of Temporal calls made by the railyard API',
    labelNames: ['call', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    observeRequest: (labels, seconds) => requests.observe(labels, seconds),
    observeTemporalCall(call, outcome, seconds) {
      temporalCalls.inc({ call, outcome });
      temporalLatency.observe({ call, outcome }, seconds);
    },
  };
}

/** Errors that are Temporal's answer (no such workflow, update refused), not a failure to answer. */
const ANSWERS = [
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
];

/** The queue client's errors that say Temporal or the worker did not answer in time. */
const UNANSWERED = new Set(['unavailable', 'busy', 'admission_timeout']);

/** How a failed Temporal call ended: no answer in time is "unavailable", an answer on purpose "rejected". */
export function outcomeOf(err: unknown): TemporalCallOutcome {
  if (isQueueClientError(err)) return UNANSWERED.has(err.problem.kind) ? 'unavailable' : 'rejected';
  if (isAppError(err)) return err.statusCode >= 500 ? 'unavailable' : 'rejected';
  return ANSWERS.some((answer) => err instanceof answer) ? 'rejected' : 'error';
}

/** Wraps a gateway's `call` so every Temporal call is counted and timed; other arguments pass through. */
export function instrumentTemporalGateway<
  G extends { call<T>(what: string, fn: () => Promise<T>, ...rest: never[]): Promise<T> },
>(gateway: G, metrics: ProcessMetrics): G {
  const call = async <T>(what: string, fn: () => Promise<T>, ...rest: never[]): Promise<T> => {
    const started = performance.now();
    try {
      const result = await gateway.call(what, fn, ...rest);
      metrics.observeTemporalCall(what, 'ok', (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      metrics.observeTemporalCall(what, outcomeOf(err), (performance.now() - started) / 1000);
      throw err;
    }
  };
  return Object.assign(Object.create(Object.getPrototypeOf(gateway) as object) as G, gateway, { call });
}

export function registerProcessMetrics(
  app: FastifyInstance,
  metrics: ProcessMetrics,
  route: ProcessMetricsRoute | false = DEFAULT_PROCESS_METRICS_ROUTE,
): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  if (route === false) return;
  app.get(route.path, { config: { public: route.public }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await expositionText(metrics.registry)),
  );
}
