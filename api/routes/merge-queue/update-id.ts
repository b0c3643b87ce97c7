/**
 * The Temporal update id of a change request, and the hash that tells two requests apart.
 *
 * Rule: one update id per request the client means, never one per body.
 * - Without an `Idempotency-Key` every HTTP request gets a fresh random id, so two requests are never
 *   merged into one: the same body sent again (a resubmission after a fix, submit → cancel → submit)
 *   is a new request. What makes a repeated request harmless is the queue's state, not the id: a
 *   submit of a PR already queued with the same settings changes nothing, a submit of a PR that ended
 *   is a new submission, a cancel or restart of a PR not in the queue answers 404 (Trunk's answer).
 * - With an `Idempotency-Key` (idempotency.ts) the id is the one minted with the key's row, so every
 *   retry under the key, also one that reaches Temporal again after its first attempt's process died,
 *   carries the same id and Temporal applies the change once. It is minted, not hashed from the key: a
 *   key reused after it expired must not meet the queue's memory of the old request.
 *
 * The queue workflow remembers the update ids it answered (also across continue-as-new) and answers a
 * known id with its first result; only ids from one key ever repeat.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { organisationOf } from '../../plugins/request-context';
import type { Change } from './service';

/** The endpoints that change something (each may carry an Idempotency-Key). */
export const CHANGE_ENDPOINTS = [
  'createQueue',
  'updateQueue',
  'deleteQueue',
  'submitPullRequest',
  'cancelPullRequest',
  'restartTestsOnPullRequest',
  'setImpactedTargets',
  'reportTestStatus',
] as const;
export type ChangeEndpoint = (typeof CHANGE_ENDPOINTS)[number];

/** A new update id; the endpoint stays readable in the Temporal UI's update list. */
export const freshUpdateId = (endpoint: ChangeEndpoint): string => `${endpoint}/${randomUUID()}`;

/**
 * SHA-256 of the endpoint and the request *as parsed*, so `"123"` and `123`, `PAUSED` and `paused`,
 * key order and ignored fields make no difference.
 */
export function requestHash(endpoint: ChangeEndpoint, body: unknown): Buffer {
  return createHash('sha256')
    .update(JSON.stringify([endpoint, canonical(body)]))
    .digest();
}

/** Plain data with object keys sorted and undefined members dropped, as JSON.stringify would. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = canonical(member);
  }
  return out;
}

/** The change a route hands to the service: the caller's organisation and the request's update id. */
export function changeOf(request: FastifyRequest, endpoint: ChangeEndpoint): Change {
  return {
    org: organisationOf(request),
    updateId: request.idempotencyKey?.updateId ?? freshUpdateId(endpoint),
  };
}
