/**
 * The API's own rules of listPullRequests; the queue client runs the visibility query
 * (queue-client/visibility.ts `submissionsQuery`) and reads the records (submission-listing.ts).
 *
 * - The cursor wraps Temporal's page token with a check over the token and the query it belongs to.
 *   Temporal answers a forged token with a retryable error (the call would hang until its deadline),
 *   so a cursor that fails the check is refused before it gets there, as is one from another listing.
 *   The check detects corruption and reuse, not a deliberate forger (it is not keyed).
 * - Visibility lags behind the records, so the state filter is applied again to each record; since
 *   and until select PRs that concluded (reached merged, failed or cancelled) in [since, until).
 */
import { createHash } from 'node:crypto';
import { isTerminal } from '../../engine';
import type { PullRequestRecord } from '../../contract';
import { badRequest } from '../errors';
import type { ListPullRequestsRequest } from '../schemas/merge-queue';

const check = (query: string, token: Uint8Array) =>
  createHash('sha256').update(query).update('\n').update(token).digest('base64url').slice(0, 16);

export function encodeCursor(query: string, token: Uint8Array): string {
  return `${Buffer.from(token).toString('base64url')}.${check(query, token)}`;
}

/** Temporal's page token inside a cursor this listing issued; a 400 for anything else. */
export function decodeCursor(query: string, cursor: string): Buffer {
  const dot = cursor.lastIndexOf('.');
  const token = Buffer.from(cursor.slice(0, Math.max(dot, 0)), 'base64url');
  if (dot <= 0 || token.length === 0 || check(query, token) !== cursor.slice(dot + 1))
    throw badRequest("Field 'cursor' is not a cursor this server issued for this listing.");
  return token;
}

export function matchesFilter(r: PullRequestRecord, request: ListPullRequestsRequest): boolean {
  if (request.state !== undefined && r.state !== request.state) return false;
  if (request.since === undefined && request.until === undefined) return true;
  if (!isTerminal(r.state)) return false;
  if (request.since !== undefined && r.stateChangedAt < Date.parse(request.since)) return false;
  return request.until === undefined || r.stateChangedAt < Date.parse(request.until);
}
