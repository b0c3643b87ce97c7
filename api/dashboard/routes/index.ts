/**
 * The web dashboard under /ui (and / redirecting there): server-rendered Eta templates (@fastify/view),
 * htmx for live updates and Chart.js for charts, both served from their npm packages by
 * @fastify/static, so there is no build step.
 *
 * Security rules (docs/dashboard.md):
 * - Every /ui route is public to the API-key hook (the dashboard never sees x-api-token) and guarded
 *   here instead by a session cookie (api/dashboard/store/sessions.ts); only the sign-in page, its form and the
 *   static assets (/ui/assets/) are open (`config.uiOpen`). A page without a session redirects to sign-in; any
 *   other request without one is a 401.
 * - Every POST except sign-in must carry the session's CSRF token in `_csrf` (constant-time compare),
 *   and is refused when the browser says it came from another site (Sec-Fetch-Site / Origin). Sign-in
 *   itself is double-submit: a nonce cookie and the same nonce in the form.
 * - The API key is only ever in a POST body; the request log records paths without query strings and
 *   never bodies. Pages are `no-store` and carry a CSP allowing scripts from this origin only.
 * - The signed-in organisation is set as `request.organisation`, so rate limits and every read and
 *   change are scoped exactly as for an API key of that organisation.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import { uiAuthHooks } from './guard';
import { uiErrorHandler } from './errors';
import { flakyPages } from './flaky';
import { flakyTestListPages } from './flaky-tests';
import { gitHubPages } from './github';
import { metricsPages } from './metrics';
import { pullRequestPages } from './pull-request';
import { queuePages } from './queues';
import { sessionRoutes } from './session';
import { testRunLogPages } from './test-run-log';
import type { UiRouteDeps } from './deps';
import { namedPlugin } from '../../plugins/named-plugin';

export type { UiDeps, UiRouteDeps } from './deps';

const UI_ROOT = path.resolve(__dirname, '..');
/** Form bodies are a handful of short fields. */
export const UI_BODY_LIMIT_BYTES = 16 * 1024;

/** The vendored files, each served alone from its package's dist folder. */
const VENDOR = [
  { prefix: '/ui/assets/vendor/htmx/', pkg: 'htmx.org', file: 'htmx.min.js' },
  { prefix: '/ui/assets/vendor/chart/', pkg: 'chart.js', file: 'chart.umd.min.js' },
] as const;

const FAVICON = fs.readFileSync(path.join(UI_ROOT, 'static', 'favicon.svg'));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uiRoutes(deps: UiRouteDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    // Before any route of this context is added: they all skip the API-key hook (plugins/auth.ts).
    app.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true, repository: 'route' };
      // Pages, not API operations: kept out of the OpenAPI document.
      route.schema = { ...(route.schema ?? {}), hide: true };
      route.bodyLimit ??= UI_BODY_LIMIT_BYTES;
    });
    // HTML forms post urlencoded fields; the API's own parser reads that content type as JSON (app.ts).
    app.removeContentTypeParser('application/x-www-form-urlencoded');
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: UI_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    await app.register(fastifyCookie);
    await app.register(fastifyView, {
      engine: { eta: new Eta({ views: path.join(UI_ROOT, 'templates'), cache: true, autoEscape: true }) },
      root: path.join(UI_ROOT, 'templates'),
      production: true,
    });
    await app.register(fastifyStatic, {
      root: path.join(UI_ROOT, 'static'),
      prefix: '/ui/assets/',
      decorateReply: false,
      index: false,
      list: false,
    });
    for (const v of VENDOR) {
      await app.register(fastifyStatic, {
        root: path.dirname(require.resolve(v.pkg)),
        prefix: v.prefix,
        decorateReply: false,
        index: false,
        list: false,
        allowedPath: (pathName) => pathName === `/${v.file}`,
      });
    }
    uiAuthHooks(app, deps);
    app.setErrorHandler(uiErrorHandler(app.errorHandler));

    app.get('/', { config: { uiOpen: true } }, (_request, reply) => reply.redirect('/ui', 303));
    app.get('/ui', { config: { uiOpen: true } }, (_request, reply) => reply.redirect('/ui/queues', 303));
    // Browsers ask every site for /favicon.ico; the dashboard's icon is an SVG, which they all take.
    app.get('/favicon.ico', { config: { uiOpen: true } }, (_request, reply) =>
      reply.type('image/svg+xml').send(FAVICON),
    );
    // The link trunk-analytics-cli prints for a failed test (Trunk's web app layout): to its page here.
    app.get<{ Params: { org: string; id: string } }>(
      '/:org/flaky-tests/test/:id',
      { config: { uiOpen: true } },
      (request, reply) =>
        UUID.test(request.params.id)
          ? reply.redirect(`/ui/flaky/tests/${request.params.id.toLowerCase()}`, 303)
          : reply.code(404).type('text/plain').send('No such test.'),
    );
    await app.register(namedPlugin('sessionRoutes', sessionRoutes(deps)));
    await app.register(namedPlugin('queuePages', queuePages(deps)));
    await app.register(namedPlugin('pullRequestPages', pullRequestPages(deps)));
    await app.register(namedPlugin('metricsPages', metricsPages(deps)));
    await app.register(namedPlugin('flakyPages', flakyPages(deps)));
    await app.register(namedPlugin('flakyTestListPages', flakyTestListPages(deps)));
    await app.register(namedPlugin('testRunLogPages', testRunLogPages(deps)));
    await app.register(namedPlugin('gitHubPages', gitHubPages(deps)));
  };
}
