/**
 * /ui/test-runs/:testRunId/log: a test run's log for the signed-in organisation, the same stored log
 * GET /v1/testRuns/{id}/log streams to an API key (routes/merge-queue/test-run-logs.ts), so the links
 * of a PR's record open in a browser. Another organisation's run, an unknown run and a run without a
 * log are the same 404; the body is plain text (never rendered as HTML), bounded by what the worker kept.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sendTestRunLog, TEST_RUN_ID } from '../../routes/merge-queue/test-run-logs';
import type { UiRouteDeps } from './deps';
import { parse } from './forms';
import { sessionOf } from './guard';

export const RUN_ID = TEST_RUN_ID;
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
      return sendTestRunLog(reply, deps.mergeQueue, org, testRunId);
    });
  };
}
