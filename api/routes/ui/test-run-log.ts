/**
 * /ui/test-runs/:testRunId/log: a test run's log for the signed-in organisation, the same stored log
 * GET /v1/testRuns/{id}/log streams to an API key (routes/merge-queue/test-run-logs.ts), so the links
 * of a PR's record open in a browser. Another organisation's run, an unknown run and a run without a
 * log are the same 404; the body is plain text (never rendered as HTML), bounded by what the worker kept.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { READ_CHUNK_BYTES } from '../../../activities/runners/run-logs';
import { notFound } from '../../errors';
import type { UiRouteDeps } from './deps';
import { parse } from './forms';
import { sessionOf } from './guard';

export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const Params = z.object({ testRunId: z.string().regex(RUN_ID, { message: 'must be a test run id' }) });

/** The dashboard's address of an API log link (`…/v1/testRuns/<id>/log`); other links unchanged. */
export function dashboardHref(href: string): string {
  let path = href;
  try {
    path = new URL(href, 'http://x').pathname;
  } catch {
    return href;
  }
  const match = /^\/v1\/testRuns\/([^/]+)\/log$/.exec(path);
  return match && RUN_ID.test(decodeURIComponent(match[1]!)) ? `/ui/test-runs/${match[1]}/log` : href;
}

export function testRunLogPages(deps: UiRouteDeps) {
  return (app: FastifyInstance): void => {
    app.get('/ui/test-runs/:testRunId/log', async (request, reply) => {
      const { testRunId } = parse(Params, request.params, 'querystring');
      const org = sessionOf(request).organisation;
      const log = deps.mergeQueue.readTestRunLog
        ? await deps.mergeQueue.readTestRunLog(org, testRunId)
        : null;
      if (!log) throw notFound(`No log is kept for test run "${testRunId}".`);
      const { info, chunk } = log;
      async function* chunks() {
        for (let offset = 0; offset < info.bytes; offset += READ_CHUNK_BYTES) {
          const part = await chunk(offset);
          if (part.length === 0) return;
          yield part;
        }
      }
      return reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('content-length', String(info.bytes))
        .header('x-railyard-log-truncated', String(info.truncated))
        .send(Readable.from(chunks()));
    });
  };
}
