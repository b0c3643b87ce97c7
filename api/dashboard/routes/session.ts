/**
 * Signing in and out of the dashboard.
 *
 * - GET /ui/sign-in: the form. It sets a fresh nonce cookie (SameSite=Strict, HttpOnly) and puts the
 *   same nonce in the form, so a sign-in posted from another site (login CSRF) is refused.
 * - POST /ui/sign-in: `key` (an API key) and `_csrf`. A valid key makes a session (api/dashboard/store/sessions.ts)
 *   and sets its cookie (HttpOnly, SameSite=Lax so links from elsewhere open the dashboard signed in,
 *   Secure and `__Host-` over https, expiring with the session); then 303 to the queues. A wrong key is
 *   a 401 page and counts as a failed authentication of the address, like a wrong x-api-token (429
 *   past the limit). The key is never echoed, logged or put in a URL.
 * - POST /ui/sign-out: deletes the session (CSRF-checked like every signed-in form), clears the cookie.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../errors';
import type { UiRouteDeps } from './deps';
import { parse } from './forms';
import { cookieNames, crossSite, sameSecret, SIGN_IN_PATH } from './guard';

const SignInForm = z.object({
  key: z.string().trim().min(1, { message: 'is required' }).max(200),
  _csrf: z.string().max(100).optional(),
});

const SIGN_IN_NONCE_SECONDS = 30 * 60;

export function sessionRoutes(deps: UiRouteDeps) {
  const names = cookieNames(deps.publicUrl);
  const signInForm = (reply: FastifyReply, status: number, message: string | null) => {
    const nonce = randomBytes(24).toString('base64url');
    return reply
      .code(status)
      .setCookie(names.signIn, nonce, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: names.secure,
        maxAge: SIGN_IN_NONCE_SECONDS,
      })
      .type('text/html; charset=utf-8')
      .view('sign-in', { title: 'Sign in', nonce, message });
  };

  return (app: FastifyInstance): void => {
    app.get(SIGN_IN_PATH, { config: { uiOpen: true } }, (_request, reply) => signInForm(reply, 200, null));

    app.post(SIGN_IN_PATH, { config: { uiOpen: true } }, async (request, reply) => {
      const nonce = request.cookies[names.signIn];
      const form = parse(SignInForm, request.body, 'body');
      if (crossSite(request) || nonce === undefined || !sameSecret(form._csrf, nonce))
        throw forbidden(
          'The sign-in form expired or was sent from another site; open the sign-in page again.',
        );
      // As for x-api-token (plugins/auth.ts): a key that authenticated recently is never locked out.
      const refused = deps.failures?.check(request.ip) ?? null;
      if (refused !== null && !deps.failures?.vouched(form.key)) throw refused;
      const created = await deps.sessions.create(form.key);
      if (created === null) {
        deps.failures?.record(request.ip);
        if (refused !== null) throw refused;
        return signInForm(reply, 401, 'That API key is not valid or has been revoked.');
      }
      deps.failures?.vouch(form.key);
      request.log.info({ org: created.session.organisation.slug }, 'dashboard sign-in');
      return reply
        .clearCookie(names.signIn, { path: '/', secure: names.secure })
        .setCookie(names.session, created.id, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: names.secure,
          expires: created.session.expiresAt,
        })
        .redirect('/ui/queues', 303);
    });

    app.post('/ui/sign-out', async (request, reply) => {
      const id = request.cookies[names.session];
      if (id !== undefined) await deps.sessions.remove(id);
      return reply
        .clearCookie(names.session, { path: '/', secure: names.secure })
        .redirect(SIGN_IN_PATH, 303);
    });
  };
}
