/**
 * The types the authentication plugins share: who a fork header says a request comes from, and the
 * authenticator auth.ts hands a key-less request to. fork-auth.ts implements them; auth.ts and
 * request-context.ts only name them, so neither needs fork-auth.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { RepositoryKey } from '../../contract';

/** The fork header a route accepts instead of an API key (`config.forkAuth`). */
export type ForkAuthMode = 'public-repo-id' | 'forked-run';

/** What a fork header authenticated: one repository, or a run whose repository the body names. */
export type ForkPrincipal =
  { kind: 'public-repo-id'; repository: RepositoryKey } | { kind: 'forked-run'; runId: number };

export interface ForkAuthenticator {
  /** For a request without an API key: true when a fork header authenticated it. */
  authenticate(request: FastifyRequest): Promise<boolean>;
}
