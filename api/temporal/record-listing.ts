/**
 * listPullRequests over the read projection (ADR 0016): one page of the queue's submissions from
 * PostgreSQL (events/store/pr-records.ts), no workflow asked. The rules of the answer are listing.ts's:
 * the same cursor check (a cursor of another listing or a forged one is a 400), the same filters.
 *
 * The cursor wraps the last row's position in the listing's order; the listing it belongs to is the
 * queue and the state filter, as for the visibility listing it replaces.
 */
import type { QueueKey } from '../../contract';
import type { ListingPosition, PrRecordStore } from '../../events/store/pr-records';
import { badRequest } from '../errors';
import type { ListPullRequestsRequest, PullRequestPage } from '../schemas/merge-queue';
import { decodeCursor, encodeCursor } from './listing';
import type { RecordLinks } from './record-wire';
import * as wire from './wire';

const listingOf = (key: QueueKey, state: string | undefined) =>
  JSON.stringify(['records', key.organisationId, key.repo, key.targetBranch, state ?? null]);

function positionOf(listing: string, cursor: string): ListingPosition {
  const parsed: unknown = JSON.parse(decodeCursor(listing, cursor).toString('utf8'));
  if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((p) => typeof p === 'string'))
    return parsed as ListingPosition;
  throw badRequest("Field 'cursor' is not a cursor this server issued for this listing.");
}

export async function listRecords(
  records: PrRecordStore,
  key: QueueKey,
  request: ListPullRequestsRequest,
  links: RecordLinks,
): Promise<PullRequestPage> {
  const listing = listingOf(key, request.state);
  const page = await records.list(key, {
    take: request.take,
    ...(request.state !== undefined ? { state: request.state } : {}),
    ...(request.since !== undefined ? { since: Date.parse(request.since) } : {}),
    ...(request.until !== undefined ? { until: Date.parse(request.until) } : {}),
    ...(request.cursor !== undefined ? { after: positionOf(listing, request.cursor) } : {}),
  });
  return {
    pullRequests: page.records.map((r) => wire.pullRequestEntry(r, links, request.targetBranch)),
    ...(page.next ? { nextCursor: encodeCursor(listing, Buffer.from(JSON.stringify(page.next))) } : {}),
  };
}
