/**
 * The dashboard's session guard, CSRF check and response headers (rules in ./index.ts).
 *
 * - onRequest: a route not marked `uiOpen` (and not a static asset) needs a live session from the
 *   session cookie; a GET without one is redirected to the sign-in page, anything else is a 401.
 * - preHandler: every POST of a signed-in route must carry the session's CSRF token in `_csrf`, and
 *   must not come from another site (Sec-Fetch-Site, else Origin against Host): 403 otherwise.
 * - onSend: pages are not cached, may not be framed, and run scripts from this origin only.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../../errors';
import type { UiSession } from '../store/sessions';
import type { UiRouteDeps } from './deps';

declare module 'fastify' {
  interface FastifyRequest {
    uiSession: UiSession | null;
  }
  interface FastifyContextConfig {
    /** A dashboard route that needs no session (sign-in, redirects). */
    uiOpen?: boolean;
  }
}

export const SIGN_IN_PATH = '/ui/sign-in';

export interface CookieNames {
  readonly session: string;
  readonly signIn: string;
  readonly secure: boolean;
}

/** `__Host-` names (bound to this host, Secure, path /) when the public URL is https. */
export function cookieNames(publicUrl: string): CookieNames {
  const secure = publicUrl.toLowerCase().startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}railyard-session`, signIn: `${prefix}railyard-sign-in`, secure };
}

export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when the browser says the request came from another site. */
export function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join('; ');

/** Why a POST of a signed-in route is refused (another site, no or a wrong CSRF token); undefined if not. */
function csrfProblem(request: FastifyRequest): Error | undefined {
  if (request.method !== 'POST' || isOpen(request)) return undefined;
  if (crossSite(request)) return forbidden('The form was sent from another site; use the dashboard itself.');
  const token = (request.body as { _csrf?: unknown } | null | undefined)?._csrf;
  if (!sameSecret(token, request.uiSession?.csrfToken ?? ''))
    return forbidden("Field '_csrf' is missing or not this session's token; reload the page and try again.");
  return undefined;
}

const isOpen = (request: FastifyRequest) =>
  request.routeOptions.config.uiOpen === true || (request.routeOptions.url ?? '').startsWith('/ui/assets/');

export function uiAuthHooks(app: FastifyInstance, deps: UiRouteDeps): void {
  const names = cookieNames(deps.publicUrl);
  app.decorateRequest('uiSession', null);

  app.addHook('onRequest', async (request, reply: FastifyReply) => {
    if (isOpen(request)) return;
    const id = request.cookies[names.session];
    const session = id === undefined ? null : await deps.sessions.find(id);
    if (session === null) {
      if (request.method === 'GET') return reply.redirect(SIGN_IN_PATH, 303);
      throw unauthorized('You are not signed in to the dashboard (or your session ended); sign in again.');
    }
    request.uiSession = session;
    request.organisation = session.organisation;
  });

  app.addHook('preHandler', (request, _reply, done) => done(csrfProblem(request)));

  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    if (!(request.routeOptions.url ?? '').startsWith('/ui/assets/')) {
      reply.header('cache-control', 'no-store');
      reply.header('content-security-policy', CSP);
    }
    done(null, payload);
  });
}

/** The signed-in session of a guarded route. */
export function sessionOf(request: FastifyRequest): UiSession {
  if (request.uiSession === null) throw unauthorized('You are not signed in to the dashboard.');
  return request.uiSession;
}
