/**
 * Authentication: every route needs a valid `x-api-token` unless it is marked `config: { public: true }`.
 * An empty header counts as absent (real Trunk clients send it empty next to a fork header). A failure is
 * a 401 with a plain-text body; success attaches the key's organisation to the request, and every
 * handler scopes its reads and writes to it. With a failure limiter, an address that sent too many
 * wrong keys is refused (429) before its key is looked up, unless the key authenticated on this
 * process recently: a valid key is never locked out by someone else's wrong ones (auth-failures.ts).
 * A route may accept a fork header instead of a key (`config.forkAuth`, fork-auth.ts); only then,
 * and only without a key, is the request handed to the fork authenticator.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiKeyStore } from '../../stores/api-keys';
import { unauthorized } from '../errors';
import type { AuthFailureLimiter } from './auth-failures';
import type { ForkAuthenticator } from './auth-types';
import { missingApiKey } from './request-context';

declare module 'fastify' {
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
      throw missingApiKey();
    }
    const refused = failures?.check(request.ip) ?? null;
    if (refused !== null && !failures?.vouched(token)) throw refused;
    const organisation = await keys.authenticate(token);
    if (!organisation) {
      failures?.record(request.ip);
      throw refused ?? unauthorized('The API key in x-api-token is not valid or has been revoked.');
    }
    failures?.vouch(token);
    request.organisation = organisation;
  });
}
