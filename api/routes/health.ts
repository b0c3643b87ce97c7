/**
 * Liveness and readiness, without auth. /healthz says the process is up. /readyz checks that PostgreSQL
 * and Temporal answer within a short deadline (503 otherwise) and reports, for information, whether a
 * worker completed a ping workflow round trip (`?worker=1`).
 *
 * Anyone can call /readyz, so no request starts work of its own: concurrent calls share one probe of
 * each kind (shared-probe.ts), and the worker's result, a workflow started and run, is reused for
 * `workerCacheMs` (5 s by default): however many callers, at most one ping workflow per window.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sharedProbe } from './shared-probe';

export interface ReadinessProbes {
  postgres: () => Promise<void>;
  temporal: () => Promise<void>;
  /** Runs the ping workflow through a worker; optional because it proves more than readiness needs. */
  worker?: () => Promise<void>;
}

const CheckResult = z.union([z.literal('ok'), z.string()]);
const Readiness = z.object({
  ready: z.boolean(),
  checks: z.object({ postgres: CheckResult, temporal: CheckResult, worker: CheckResult.optional() }),
});

async function probe(fn: () => Promise<void>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0]! : 'failed';
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthOptions {
  /** Deadline of each probe. */
  readonly timeoutMs: number;
  /** How long a worker probe's result is reused. */
  readonly workerCacheMs: number;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

export const DEFAULT_WORKER_PROBE_CACHE_MS = 5_000;

export function healthRoutes(probes: ReadinessProbes, opts: HealthOptions) {
  const { timeoutMs, now } = opts;
  const postgres = sharedProbe(() => probe(probes.postgres, timeoutMs), { ttlMs: 0, now });
  const temporal = sharedProbe(() => probe(probes.temporal, timeoutMs), { ttlMs: 0, now });
  const workerProbe = probes.worker;
  const worker = workerProbe
    ? sharedProbe(() => probe(workerProbe, timeoutMs), { ttlMs: opts.workerCacheMs, now })
    : undefined;
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.get(
      '/healthz',
      { config: { public: true }, schema: { response: { 200: z.object({ status: z.literal('ok') }) } } },
      () => ({ status: 'ok' as const }),
    );
    r.get(
      '/readyz',
      {
        config: { public: true },
        schema: {
          querystring: z.object({
            worker: z
              .enum(['0', '1'])
              .optional()
              .describe('1: also check that a worker completes a ping workflow round trip.')
              .meta({ example: '1' }),
          }),
          response: { 200: Readiness, 503: Readiness },
        },
      },
      async (request, reply) => {
        const [pg, tc, wk] = await Promise.all([
          postgres(),
          temporal(),
          request.query.worker === '1' && worker ? worker() : undefined,
        ]);
        const ready = pg === 'ok' && tc === 'ok' && (wk === undefined || wk === 'ok');
        return reply
          .code(ready ? 200 : 503)
          .send({ ready, checks: { postgres: pg, temporal: tc, ...(wk ? { worker: wk } : {}) } });
      },
    );
  };
}
