/**
 * Liveness and readiness, without auth. /healthz says the process is up. /readyz checks that PostgreSQL
 * and Temporal answer within a short deadline (503 otherwise) and reports, for information, whether a
 * worker completed a ping workflow round trip.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

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

export function healthRoutes(probes: ReadinessProbes, timeoutMs: number) {
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
          querystring: z.object({ worker: z.enum(['0', '1']).optional() }),
          response: { 200: Readiness, 503: Readiness },
        },
      },
      async (request, reply) => {
        const [postgres, temporal, worker] = await Promise.all([
          probe(probes.postgres, timeoutMs),
          probe(probes.temporal, timeoutMs),
          request.query.worker === '1' && probes.worker ? probe(probes.worker, timeoutMs) : undefined,
        ]);
        const ready = postgres === 'ok' && temporal === 'ok' && (worker === undefined || worker === 'ok');
        return reply
          .code(ready ? 200 : 503)
          .send({ ready, checks: { postgres, temporal, ...(worker ? { worker } : {}) } });
      },
    );
  };
}
