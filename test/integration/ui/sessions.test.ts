/**
 * The dashboard's sign-in, session and CSRF rules through the real app and real PostgreSQL (sessions,
 * API keys, the flaky store fed by real uploads): cookies' flags, keys never in logs, URLs or pages,
 * CSRF refusals that change nothing, sign-out and revocation ending a session, the API's x-api-token
 * auth unchanged, sessions bounded per key, and one organisation's session never reaching another's
 * repositories, queues or tests.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createUiSessionStore, MAX_SESSIONS_PER_KEY } from '../../../api/dashboard/store/sessions';
import { buildTestApp, type CapturedLog } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { junit } from '../flaky/harness';

const REPO = { host: 'github.com', owner: 'acme', name: 'shop' };
let pool: Pool;
let app: FastifyInstance;
let log: CapturedLog;
let acmeKey: string;
let globexKey: string;
let testId: string;

const cookieOf = (res: LightMyRequestResponse, name: string) =>
  res.cookies.find((c) => c.name === name)?.value;

/** Signs in through the form as a browser does; the session cookie header to send afterwards. */
async function signIn(target: FastifyInstance, key: string, cookieName = 'railyard-session') {
  const form = await target.inject({ method: 'GET', url: '/ui/sign-in' });
  const nonce = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const signInCookie = form.cookies.find((c) => c.name.endsWith('railyard-sign-in'))!;
  const res = await target.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    cookies: { [signInCookie.name]: signInCookie.value },
    payload: new URLSearchParams({ key, _csrf: nonce }).toString(),
  });
  return { res, cookie: cookieOf(res, cookieName) };
}

async function csrfOf(cookie: string): Promise<string> {
  const page = await app.inject({
    method: 'GET',
    url: '/ui/queues',
    cookies: { 'railyard-session': cookie },
  });
  return /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
}

const setOverride = (cookie: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: `/ui/flaky/tests/${testId}/override`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    cookies: { 'railyard-session': cookie },
    payload: new URLSearchParams(body).toString(),
  });

const overrideNow = async () =>
  (await pool.query<{ o: string }>('SELECT quarantine_override AS o FROM test_cases WHERE id = $1', [testId]))
    .rows[0]!.o;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('ui_sessions'));
  const keys = createApiKeyStore(pool);
  acmeKey = (await keys.create('acme')).key;
  globexKey = (await keys.create('globex')).key;
  ({ app, log } = await buildTestApp(pool, { ui: { sessions: createUiSessionStore(pool), pool } }));
  const upload = await app.inject({
    method: 'POST',
    url: '/v1/flaky-tests/upload',
    headers: { 'content-type': 'application/json', 'x-api-token': acmeKey },
    payload: {
      org_url_slug: 'acme',
      repo: REPO,
      upload_id: 'u-1',
      commit_sha: 'c0ffee1',
      branch: 'main',
      files: [{ name: 'junit.xml', content: junit({ checkout: 'FP' }) }],
    },
  });
  expect(upload.statusCode).toBe(200);
  testId = (await pool.query<{ id: string }>("SELECT id FROM test_cases WHERE name = 'checkout'")).rows[0]!
    .id;
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

test("the link trunk-analytics-cli prints for a failed test leads to the test's page", async () => {
  const id = '0804520E-5b62-5e4a-a81b-685f732075ea';
  const res = await app.inject({ method: 'GET', url: `/acme/flaky-tests/test/${id}?repo=acme%2Fwidgets` });
  expect([res.statusCode, res.headers.location]).toEqual([303, `/ui/flaky/tests/${id.toLowerCase()}`]);
  expect((await app.inject({ method: 'GET', url: '/acme/flaky-tests/test/not-an-id' })).statusCode).toBe(404);
});

test('/ and /ui lead to the queues; without a session a page redirects to sign-in and a change is a 401', async () => {
  expect((await app.inject({ method: 'GET', url: '/' })).headers.location).toBe('/ui');
  expect((await app.inject({ method: 'GET', url: '/ui' })).headers.location).toBe('/ui/queues');
  const page = await app.inject({ method: 'GET', url: '/ui/queues' });
  expect([page.statusCode, page.headers.location]).toEqual([303, '/ui/sign-in']);
  const forged = await app.inject({
    method: 'GET',
    url: '/ui/queues',
    cookies: { 'railyard-session': 'x'.repeat(43) },
  });
  expect(forged.headers.location).toBe('/ui/sign-in');
  const change = await setOverride('nope', { override: 'ALWAYS_QUARANTINE', _csrf: 'x' });
  expect(change.statusCode).toBe(401);
  // Assets load without a session; only the vendored file itself is served from its package.
  expect((await app.inject({ method: 'GET', url: '/ui/assets/app.css' })).statusCode).toBe(200);
  expect((await app.inject({ method: 'GET', url: '/ui/assets/vendor/htmx/htmx.min.js' })).statusCode).toBe(
    200,
  );
  expect(
    (await app.inject({ method: 'GET', url: '/ui/assets/vendor/chart/chart.umd.min.js' })).statusCode,
  ).toBe(200);
  expect((await app.inject({ method: 'GET', url: '/ui/assets/vendor/htmx/htmx.js' })).statusCode).toBe(404);
  // Pages are not API operations: none is in the OpenAPI document.
  const paths = Object.keys(
    (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: object }>().paths,
  );
  expect(paths.filter((p) => p === '/' || p.startsWith('/ui'))).toEqual([]);
});

test('sign-in sets an HttpOnly SameSite cookie; the key never reaches a log line, a URL or a page', async () => {
  const before = log.lines.length;
  const wrong = await signIn(app, `${acmeKey.slice(0, -4)}AAAA`);
  expect(wrong.res.statusCode).toBe(401);
  expect(wrong.res.body).toContain('not valid or has been revoked');
  const { res, cookie } = await signIn(app, acmeKey);
  expect([res.statusCode, res.headers.location]).toEqual([303, '/ui/queues']);
  const set = res.cookies.find((c) => c.name === 'railyard-session')!;
  expect(set).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(set.secure).toBeFalsy();
  const page = await app.inject({
    method: 'GET',
    url: '/ui/queues',
    cookies: { 'railyard-session': cookie! },
  });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  expect(page.headers['cache-control']).toBe('no-store');
  const logged = log.lines.slice(before).join('\n');
  for (const secret of [acmeKey, acmeKey.slice(3), `${acmeKey.slice(0, -4)}AAAA`, cookie!])
    expect(logged).not.toContain(secret);
  expect(logged).toContain('/ui/sign-in');
  expect(`${wrong.res.body}${page.body}${res.headers.location}`).not.toContain(acmeKey);
});

test('over https the cookies are Secure and __Host- prefixed', async () => {
  const { app: secure } = await buildTestApp(pool, {
    publicUrl: 'https://railyard.example.com',
    ui: { sessions: createUiSessionStore(pool), pool },
  });
  try {
    const { res, cookie } = await signIn(secure, acmeKey, '__Host-railyard-session');
    expect(cookie).toBeDefined();
    expect(res.cookies.find((c) => c.name === '__Host-railyard-session')).toMatchObject({
      secure: true,
      httpOnly: true,
      path: '/',
    });
  } finally {
    await secure.close();
  }
});

test('a sign-in without the form nonce, or from another site, is refused', async () => {
  const bare = await app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ key: acmeKey, _csrf: 'guess' }).toString(),
  });
  expect(bare.statusCode).toBe(403);
  expect(bare.cookies.find((c) => c.name === 'railyard-session')).toBeUndefined();
});

test('every change needs the session CSRF token and a same-site origin; refusals change nothing', async () => {
  const { cookie } = await signIn(app, acmeKey);
  const csrf = await csrfOf(cookie!);
  for (const [body, headers] of [
    [{ override: 'ALWAYS_QUARANTINE' }, {}],
    [{ override: 'ALWAYS_QUARANTINE', _csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }, {}],
    [{ override: 'ALWAYS_QUARANTINE', _csrf: csrf }, { 'sec-fetch-site': 'cross-site' }],
    [{ override: 'ALWAYS_QUARANTINE', _csrf: csrf }, { origin: 'https://evil.example' }],
  ] as const) {
    const res = await setOverride(cookie!, body, headers);
    expect(res.statusCode).toBe(403);
    expect(await overrideNow()).toBe('UNSPECIFIED');
  }
  // Another session's token does not do either.
  const other = await signIn(app, acmeKey);
  expect(
    (await setOverride(cookie!, { override: 'ALWAYS_QUARANTINE', _csrf: await csrfOf(other.cookie!) }))
      .statusCode,
  ).toBe(403);
  const ok = await setOverride(cookie!, {
    override: 'ALWAYS_QUARANTINE',
    reason: 'flakes on CI',
    _csrf: csrf,
  });
  expect([ok.statusCode, ok.headers.location]).toEqual([303, `/ui/flaky/tests/${testId}`]);
  expect(await overrideNow()).toBe('ALWAYS_QUARANTINE');
  const page = await app.inject({
    method: 'GET',
    url: `/ui/flaky/tests/${testId}`,
    cookies: { 'railyard-session': cookie! },
  });
  expect(page.body).toMatch(/always quarantine<\/strong> by dashboard:ry_/);
  const bad = await setOverride(cookie!, { override: 'SOMETIMES', _csrf: csrf });
  expect(bad.statusCode).toBe(400);
  expect(bad.body).toContain(
    'Field &#39;override&#39; must be one of: UNSPECIFIED, ALWAYS_QUARANTINE, NEVER_QUARANTINE.',
  );
  await setOverride(cookie!, { override: 'UNSPECIFIED', _csrf: csrf });
});

test('sign-out and a revoked key end the session; the API still wants x-api-token', async () => {
  const keys = createApiKeyStore(pool);
  const { cookie } = await signIn(app, acmeKey);
  const api = await app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    cookies: { 'railyard-session': cookie! },
    payload: { repo: REPO, targetBranch: 'main' },
  });
  expect(api.statusCode).toBe(401);
  const out = await app.inject({
    method: 'POST',
    url: '/ui/sign-out',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    cookies: { 'railyard-session': cookie! },
    payload: `_csrf=${await csrfOf(cookie!)}`,
  });
  expect(out.headers.location).toBe('/ui/sign-in');
  expect(
    (await app.inject({ method: 'GET', url: '/ui/queues', cookies: { 'railyard-session': cookie! } }))
      .statusCode,
  ).toBe(303);

  const temporary = await keys.create('acme', 'temporary');
  const signedIn = await signIn(app, temporary.key);
  expect(
    (await app.inject({ method: 'GET', url: '/ui/flaky', cookies: { 'railyard-session': signedIn.cookie! } }))
      .statusCode,
  ).toBe(200);
  await keys.revoke(temporary.summary.id);
  expect(
    (await app.inject({ method: 'GET', url: '/ui/flaky', cookies: { 'railyard-session': signedIn.cookie! } }))
      .statusCode,
  ).toBe(303);
});

test('a key keeps at most MAX_SESSIONS_PER_KEY sessions', async () => {
  const keys = createApiKeyStore(pool);
  const many = await keys.create('acme', 'many');
  const sessions = createUiSessionStore(pool);
  for (let i = 0; i < MAX_SESSIONS_PER_KEY + 5; i += 1)
    expect(await sessions.create(many.key)).not.toBeNull();
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM ui_sessions WHERE api_key_id = $1',
    [many.summary.id],
  );
  expect(rows[0]!.n).toBe(MAX_SESSIONS_PER_KEY);
});

test("another organisation's session reaches none of acme's repositories, queues or tests", async () => {
  const { cookie } = await signIn(app, globexKey);
  const as = (method: 'GET' | 'POST', url: string, payload?: string) =>
    app.inject({
      method,
      url,
      cookies: { 'railyard-session': cookie! },
      ...(payload === undefined
        ? {}
        : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload }),
    });
  const qs = 'host=github.com&owner=acme&name=shop';
  for (const url of [
    `/ui/flaky/tests/${testId}`,
    `/ui/flaky/repository?${qs}`,
    `/ui/queue?${qs}&branch=main`,
    `/ui/pr?${qs}&branch=main&pr=1`,
    `/ui/metrics?${qs}&branch=main`,
  ]) {
    const res = await as('GET', url);
    expect([url, res.statusCode]).toEqual([url, 404]);
  }
  const csrf = await csrfOf(cookie!);
  const change = await as(
    'POST',
    `/ui/flaky/tests/${testId}/override`,
    `override=NEVER_QUARANTINE&_csrf=${csrf}`,
  );
  expect(change.statusCode).toBe(404);
  const pause = await as('POST', `/ui/queue/state?${qs}&branch=main`, `state=paused&_csrf=${csrf}`);
  expect(pause.statusCode).toBe(404);
  expect(await overrideNow()).toBe('UNSPECIFIED');
  const list = await as('GET', '/ui/flaky');
  expect(list.body).not.toContain('acme/shop');
});
