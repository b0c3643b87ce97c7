/**
 * Authentication: every route needs a valid `x-api-token` unless it is marked `config: { public: true }`.
 * An empty header counts as absent (real Trunk clients send it empty next to a fork header). A failure is
 * a 401 with a plain-text body; success attaches the key's organisation to the request, and every
 * handler scopes its reads and writes to it. With a failure limiter, an address that sent too many
 * wrong keys is refused (429) before its key is looked up (auth-failures.ts). A route may accept a fork
 * header instead of a key (`config.forkAuth`, fork-auth.ts); only then, and only without a key, is
 * the request handed to the fork authenticator.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiKeyStore, Organisation } from '../../stores/api-keys';
import { unauthorized } from '../errors';
import type { AuthFailureLimiter } from './auth-failures';
import type { ForkAuthenticator } from './fork-auth';

declare module 'fastify' {
  interface FastifyRequest {
    organisation: Organisation | null;
  }
  interface FastifyContextConfig {
    public?: boolean;
  }
}

export function registerAuth(
  app: FastifyInstance,
  keys: ApiKeyStore,
  failures?: AuthFailureLimiter,
  forks?: ForkAuthenticator,
): void {
  app.decorateRequest('organisation', null);
  app.addHook('onRequest', async (request) => {
    // Unknown routes answer 404 to everyone; the route list is public (openapi.json) anyway.
    const route = request.routeOptions.url;
    if (route === undefined || request.routeOptions.config.public === true || route.startsWith('/v1/docs'))
      return;
    const header = request.headers['x-api-token'];
    const token = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
    if (token === '') {
      if (forks && (await forks.authenticate(request))) return;
      throw unauthorized('Missing API key: send it in the x-api-token header.');
    }
    const refused = failures?.check(request.ip);
    if (refused) throw refused;
    const organisation = await keys.authenticate(token);
    if (!organisation) {
      failures?.record(request.ip);
      throw unauthorized('The API key in x-api-token is not valid or has been revoked.');
    }
    request.organisation = organisation;
  });
}

/** The organisation of an authenticated request (routes behind the auth hook only). */
export function organisationOf(request: { organisation: Organisation | null }): Organisation {
  if (!request.organisation) throw unauthorized('Missing API key: send it in the x-api-token header.');
  return request.organisation;
}
