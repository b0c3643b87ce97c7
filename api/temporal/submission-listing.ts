/**
 * listPullRequests over Temporal: one visibility page of the queue's PR workflows (listing.ts holds the
 * query and cursor rules), then each run's record read by query, QUERY_BATCH at a time (each query of a
 * finished run replays it on a worker), answered with the records' explanations (record-wire.ts).
 */
import type { Organisation } from '../../stores/api-keys';
import type { PullRequestRecord } from '../../contract';
import type { ListPullRequestsRequest, PullRequestPage } from '../schemas/merge-queue';
import type { TemporalGateway } from './client';
import { decodeCursor, encodeCursor, matchesFilter, submissionsQuery } from './listing';
import type { RecordLinks } from './record-wire';
import * as wire from './wire';

/** Queries in flight at once for one page or one batch read. */
export const QUERY_BATCH = 10;

/** One page of submissions: a visibility page, then each run's record read by query. */
export async function listSubmissions(
  temporal: TemporalGateway,
  org: Organisation,
  request: ListPullRequestsRequest,
  queryPullRequest: (workflowId: string, runId?: string) => Promise<PullRequestRecord | null>,
  links: RecordLinks,
): Promise<PullRequestPage> {
  const { client } = temporal;
  const query = submissionsQuery(org, request, request.state);
  const nextPageToken = request.cursor !== undefined ? decodeCursor(query, request.cursor) : undefined;
  const page = await temporal.call('listPullRequests', () =>
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: request.take,
      nextPageToken,
    }),
  );
  const runs = page.executions.flatMap(({ execution: e }) =>
    e?.workflowId ? [{ workflowId: e.workflowId, runId: e.runId ?? undefined }] : [],
  );
  const records: (PullRequestRecord | null)[] = [];
  // Bounded fan-out: each query of a finished run replays it on a worker.
  for (let i = 0; i < runs.length; i += QUERY_BATCH) {
    const batch = runs.slice(i, i + QUERY_BATCH);
    records.push(...(await Promise.all(batch.map((r) => queryPullRequest(r.workflowId, r.runId)))));
  }
  const token = page.nextPageToken;
  return {
    pullRequests: records
      .filter((r): r is PullRequestRecord => r !== null && matchesFilter(r, request))
      .map((r) => wire.pullRequestEntry(r, links, request.targetBranch)),
    ...(token && token.length > 0 ? { nextCursor: encodeCursor(query, token) } : {}),
  };
}
