/**
 * Authentication of the /v1/executor/* routes (issue 24, ADR 0014): `Authorization: Bearer <executor
 * credential>`, an operator-issued credential (test-runs/store/executor-credentials.ts), never an
 * organisation's API key. The routes are marked public for the API-key hook (plugins/auth.ts) and
 * authenticate here, before any body is read.
 *
 * Rule: a missing, malformed, unknown or revoked credential is a 401 with one sentence, the same for
 * each but the missing header (nothing tells a guesser which).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ExecutorCredentials, ExecutorIdentity } from '../../../test-runs/store/executor-credentials';
import { unauthorized } from '../../errors';

declare module 'fastify' {
  interface FastifyRequest {
    executor: ExecutorIdentity | null;
  }
}

const BEARER = /^Bearer (\S+)$/;

export function registerExecutorAuth(app: FastifyInstance, credentials: ExecutorCredentials): void {
  app.decorateRequest('executor', null);
  // onRequest: before the body is parsed, so an unauthenticated caller costs no parsing.
  app.addHook('onRequest', async (request) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match)
      throw unauthorized(
        'The Authorization header must carry an executor credential as "Bearer <credential>".',
      );
    const executor = await credentials.authenticate(match[1]!);
    if (!executor) throw unauthorized('The executor credential is not valid or has been revoked.');
    request.executor = executor;
  });
}

/** The authenticated executor of a request of these routes. */
export function executorOf(request: FastifyRequest): ExecutorIdentity {
  if (!request.executor) throw unauthorized('The executor credential is not valid or has been revoked.');
  return request.executor;
}
