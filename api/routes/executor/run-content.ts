/**
 * GET /v1/executor/run-content: a test run's git bundle, for the executor that runs it (issue 17,
 * test-runs/store/run-content.ts). The bearer token in the Authorization header is the only
 * authority: it names one commit of one repository for one run and ends with the run. No API key —
 * executors hold none.
 *
 * Rules:
 * - An unknown, expired or dropped token is 404 with one sentence, the same for each (nothing tells a
 *   guesser which); a missing or malformed header is 401.
 * - The bundle is streamed chunk by chunk from PostgreSQL, with its length declared up front.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { RunContentStore } from '../../../test-runs/store/run-content';
import { notFound, unauthorized } from '../../errors';

const BEARER = /^Bearer ([A-Za-z0-9_-]{16,128})$/;

export function executorRoutes(deps: { contents: RunContentStore }) {
  return (app: FastifyInstance): void => {
    app.get(
      '/executor/run-content',
      {
        schema: {
          tags: ['executors'],
          summary: "A test run's git bundle, for the executor that runs it.",
          description:
            'Authorization: Bearer <the content token of the executor activity>. Answers application/x-git-bundle.',
        },
        config: { public: true },
      },
      async (request, reply) => {
        const match = BEARER.exec(request.headers.authorization ?? '');
        if (!match)
          throw unauthorized(
            'The Authorization header must carry the run content token as "Bearer <token>".',
          );
        const token = match[1]!;
        const staged = await deps.contents.lookup(token);
        if (!staged) throw notFound("The run's content is gone: the run ended or its token expired.");
        async function* chunks() {
          for (let seq = 0; ; seq += 1) {
            const chunk = await deps.contents.chunk(token, seq);
            if (chunk === null) return;
            yield chunk;
          }
        }
        return reply
          .header('content-type', 'application/x-git-bundle')
          .header('content-length', String(staged.sizeBytes))
          .header('cache-control', 'no-store')
          .send(Readable.from(chunks()));
      },
    );
  };
}
