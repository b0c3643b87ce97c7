/**
 * listPullRequests over the queue client: one visibility page of the queue's PR workflows (the query is
 * queue-client/visibility.ts's, the cursor and filter rules listing.ts's), then each run's record read
 * by query, QUERY_BATCH at a time (each query of a finished run replays it on a worker), answered with
 * the records' explanations (record-wire.ts).
 */
import type { PullRequestRecord, QueueKey } from '../../contract';
import { submissionsQuery, type QueueClient } from '../../queue-client';
import type { ListPullRequestsRequest, PullRequestPage } from '../schemas/merge-queue';
import { decodeCursor, encodeCursor, matchesFilter } from './listing';
import type { RecordLinks } from './record-wire';
import * as wire from './wire';

/** One page of submissions: a visibility page, then each run's record read by query. */
export async function listSubmissions(
  queues: Pick<QueueClient, 'listWorkflows' | 'readPullRequests'>,
  key: QueueKey,
  request: ListPullRequestsRequest,
  links: RecordLinks,
): Promise<PullRequestPage> {
  const query = submissionsQuery(key, request.state);
  const nextPageToken = request.cursor !== undefined ? decodeCursor(query, request.cursor) : undefined;
  const page = await queues.listWorkflows('listPullRequests', query, {
    pageSize: request.take,
    ...(nextPageToken ? { nextPageToken } : {}),
  });
  const records = await queues.readPullRequests(page.runs);
  return {
    pullRequests: records
      .filter((r): r is PullRequestRecord => r !== null && matchesFilter(r, request))
      .map((r) => wire.pullRequestEntry(r, links, request.targetBranch)),
    ...(page.nextPageToken ? { nextCursor: encodeCursor(query, page.nextPageToken) } : {}),
  };
}
