/**
 * /ui/test-runs/:testRunId/log: a test run's log for the signed-in organisation, the same stored log
 * GET /v1/testRuns/{id}/log streams to an API key (routes/merge-queue/test-run-logs.ts), so the links
 * of a PR's record open in a browser. Another organisation's run, an unknown run and a run without a
 * log are the same 404; the body is plain text (never rendered as HTML), bounded by what the worker kept.
 *
 * Opened from a PR's page (`?pr=<n>`, or a Referer that is this dashboard's page of PR n), the log
 * starts with a line naming that PR and the PRs the run tested with it: a batch run's branch is named
 * after its first PR (`railyard-merge/pr-1/…`), which is not the PR the reader came from. The line is
 * written only when the event log records PR n in this run; otherwise the log is sent as stored.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sendTestRunLog, TEST_RUN_ID } from '../../routes/merge-queue/test-run-logs';
import type { RunOfPullRequest } from '../store/reads';
import type { UiRouteDeps } from './deps';
import { parse } from './forms';
import { sessionOf } from './guard';

export const RUN_ID = TEST_RUN_ID;
const Params = z.object({ testRunId: z.string().regex(RUN_ID, { message: 'must be a test run id' }) });
const PR_NUMBER = /^[1-9][0-9]{0,15}$/;
const Query = z.object({
  pr: z.string().regex(PR_NUMBER, { message: 'must be a pull request number' }).optional(),
});
/** PRs named in the line at most; a larger batch says how many more it had. */
const MAX_NAMED = 20;

/** The PR the log was opened from: `?pr=`, else the PR of a Referer that is this dashboard's PR page. */
export function openedFrom(query: { pr?: string }, referer: string | undefined, host: string | undefined) {
  if (query.pr !== undefined) return Number(query.pr);
  if (!referer || !host) return null;
  try {
    const url = new URL(referer);
    const pr = url.searchParams.get('pr');
    return url.host === host && url.pathname === '/ui/pr' && pr !== null && PR_NUMBER.test(pr)
      ? Number(pr)
      : null;
  } catch {
    return null;
  }
}

/** `#1, #2 and #3` (at most MAX_NAMED, then how many more). */
function prList(prs: readonly number[]): string {
  const named = prs.slice(0, MAX_NAMED).map((n) => `#${n}`);
  if (prs.length > MAX_NAMED) return `${named.join(', ')} and ${prs.length - MAX_NAMED} more`;
  return named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)!}`;
}

/** The first line of a log opened from PR `pr`'s page: which PR, and what the run tested with it. */
export function logPreamble(pr: number, run: RunOfPullRequest): string {
  const kind = run.bisection ? 'bisection run' : 'run';
  const others = run.batch.filter((n) => n !== pr);
  if (others.length === 0) return `# opened from pull request #${pr}: this ${kind} tested it alone\n`;
  const first = run.batch[0];
  const branch =
    first !== undefined && first !== pr ? ` (its branch is named after #${first}, the first)` : '';
  return `# opened from pull request #${pr}: this ${kind} tested ${prList(run.batch)} together${branch}\n`;
}

/**
 * The dashboard's address of a run's log; `pr`: the PR page it is linked from, so the log's first line
 * names that PR (openedFrom), whether or not the browser sends a Referer.
 */
export function logHref(testRunId: string, pr?: number): string {
  return `/ui/test-runs/${encodeURIComponent(testRunId)}/log${pr === undefined ? '' : `?pr=${pr}`}`;
}

/** The dashboard's address of an API log link (`…/v1/testRuns/<id>/log`); other links unchanged. */
export function dashboardHref(href: string, pr?: number): string {
  let path = href;
  try {
    path = new URL(href, 'http://x').pathname;
  } catch {
    return href;
  }
  const match = /^\/v1\/testRuns\/([^/]+)\/log$/.exec(path);
  if (!match) return href;
  const id = decodeURIComponent(match[1]!);
  return RUN_ID.test(id) ? logHref(id, pr) : href;
}

export function testRunLogPages(deps: UiRouteDeps) {
  return (app: FastifyInstance): void => {
    app.get('/ui/test-runs/:testRunId/log', async (request, reply) => {
      const { testRunId } = parse(Params, request.params, 'querystring');
      const pr = openedFrom(
        parse(Query, request.query, 'querystring'),
        request.headers.referer,
        request.headers.host,
      );
      const org = sessionOf(request).organisation;
      const run = pr === null ? null : await deps.reads.runOfPullRequest(org.id, testRunId, pr);
      return sendTestRunLog(
        reply,
        deps.mergeQueue,
        org,
        testRunId,
        run && pr !== null ? logPreamble(pr, run) : '',
      );
    });
  };
}
