/**
 * The Temporal update id of a change request, so that a retried identical request is applied once.
 *
 * Rule: the id hashes the endpoint, the organisation, the request *as parsed* (so `"123"` and `123`,
 * `PAUSED` and `paused`, key order and ignored fields make no difference) and the retry window the
 * request arrives in.
 * Why a window: a queue remembers the update ids it applied (also across continue-as-new), and the
 * same body legitimately comes back later (submit, cancel, submit again; a second restart after
 * another flake). A client retry arrives within seconds, so identical requests within one window
 * are taken as one request.
 * A retry that straddles a window edge is applied again, which every change tolerates: submit updates
 * in place, cancel answers 404, restart restarts once more.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { organisationOf } from '../../plugins/auth';
import type { Change } from './service';

export const RETRY_WINDOW_MS = 60_000;

export function updateIdOf(endpoint: string, organisationId: string, body: unknown, at: number): string {
  const window = Math.floor(at / RETRY_WINDOW_MS);
  const digest = createHash('sha256')
    .update(JSON.stringify([endpoint, organisationId, window, canonical(body)]))
    .digest('base64url')
    .slice(0, 32);
  // The endpoint stays readable in the Temporal UI's update list.
  return `${endpoint}/${digest}`;
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
export function changeOf(request: FastifyRequest, endpoint: string, now: () => number): Change {
  const org = organisationOf(request);
  return { org, updateId: updateIdOf(endpoint, org.id, request.body, now()) };
}
