/**
 * POST /v1/flakytests-cli/upload-metrics and /v1/flakytests-uploader/upload-metrics: the telemetry
 * that trunk-analytics-cli and the analytics-uploader action send after an upload (a protobuf body;
 * to railyard itself only when TRUNK_PUBLIC_API_ADDRESS is plain http, otherwise to
 * `telemetry.<host>`). railyard keeps no client telemetry: the body is read, dropped, and answered
 * 204, so the clients report nothing and nothing is logged as an error.
 *
 * Invariants: the body is bounded (TELEMETRY_BODY_LIMIT_BYTES, 413 past it) and never parsed,
 * stored or logged. The routes are public: the CLI sends no key from fork PRs, and a request carries
 * nothing railyard acts on (per-address rate limits apply as to any request without a key).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tags } from './deps';

export const TELEMETRY_BODY_LIMIT_BYTES = 64 * 1024;

const PATHS = ['/flakytests-cli/upload-metrics', '/flakytests-uploader/upload-metrics'] as const;

export function telemetryRoutes() {
  return (app: FastifyInstance): void => {
    // Any content type (the clients send application/x-protobuf), read as bytes and dropped. This
    // parser is scoped to this plugin's routes only.
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: TELEMETRY_BODY_LIMIT_BYTES },
      (_request, _body, done) => done(null, undefined),
    );
    for (const path of PATHS)
      app.withTypeProvider<ZodTypeProvider>().post(
        path,
        {
          bodyLimit: TELEMETRY_BODY_LIMIT_BYTES,
          config: { public: true },
          schema: {
            tags,
            summary: 'Trunk client telemetry: accepted and dropped (railyard keeps none).',
            response: { 204: z.null().describe('Dropped; no body.') },
          },
        },
        async (_request, reply) => reply.code(204).send(null),
      );
  };
}
