/**
 * What the plugins attach to a request and what they and the routes read back from it: the
 * authenticated organisation (auth.ts, fork-auth.ts), the fork principal (fork-auth.ts), whether it
 * acts only on a public repository id, and the repository a validated request names (read by fork-auth.ts and repository-access.ts). The plugins
 * import this module and not one another.
 */
import type { FastifyRequest } from 'fastify';
import type { Organisation } from '../../stores/api-keys';
import type { RepositoryKey } from '../../contract';
import { unauthorized } from '../errors';
import type { ForkPrincipal } from './auth-types';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook (or a fork header); null on public routes. */
    organisation: Organisation | null;
    /** Set when the request authenticated with a fork header instead of an API key. */
    fork: ForkPrincipal | null;
    /** Set by a bundle PUT whose upload URL a caller with a public repository id asked for. */
    uploadByPublicId?: boolean;
  }
}

/**
 * True when the request acts only on the strength of a repository's public id (directly, or through
 * an upload URL asked for with one): an outsider may have sent it, so it spends budgets of its own,
 * never the organisation's (rate-limit.ts, in-flight.ts, pending bundle uploads).
 */
export const byPublicIdCaller = (request: FastifyRequest): boolean =>
  request.fork?.kind === 'public-repo-id' || request.uploadByPublicId === true;

/** The 401 of a request that needed a key and sent none. */
export const missingApiKey = () => unauthorized('Missing API key: send it in the x-api-token header.');

/** The organisation of an authenticated request (routes behind the auth hook only). */
export function organisationOf(request: { organisation: Organisation | null }): Organisation {
  if (!request.organisation) throw missingApiKey();
  return request.organisation;
}

/** The repository a validated request names, if it names one the generic way. */
export function namedRepository(request: FastifyRequest): RepositoryKey | null {
  const body = request.body as { repo?: unknown } | null | undefined;
  if (body !== null && typeof body === 'object' && isRepositoryKey(body.repo)) return body.repo;
  if (isRepositoryKey(request.query)) return request.query;
  return null;
}

function isRepositoryKey(value: unknown): value is RepositoryKey {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.host === 'string' && typeof v.owner === 'string' && typeof v.name === 'string';
}
