/**
 * Budgets an outsider cannot spend (issue 24), on the real app and PostgreSQL through `inject` with
 * chosen peer addresses:
 *
 * - Behind a trusted reverse proxy (RAILYARD_TRUST_PROXY) every budget counted per address counts the
 *   real client: one client's wrong keys lock out that client only, never another client of the same
 *   proxy; a client reaching the API directly cannot pick its address with X-Forwarded-For.
 * - Without one (every client shares the proxy's address), a key that authenticated recently is
 *   never refused for others' wrong keys, and a revoked one stops working at once.
 * - Traffic without a key has one bucket per kind: a flood of /readyz, unsigned GitHub webhooks,
 *   bundle PUTs, executor requests or public-id requests spends only its own kind's budget, and
 *   public-id requests never spend the owner organisation's keyed budget.
 * - Public-id callers hold a small cap of upload URLs and upload slots of their own; the owner's keyed
 *   uploads keep theirs.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { inThreadJunitParser, type JunitParser } from '../../../flaky/junit';
import { createFlakyStore } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createRepositoryPublicIds } from '../../../stores/repository-public-ids';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { bundleOf, metaJson } from '../../support/bundles';
import { claimRepository } from '../../support/ownership';
import { createMigratedDatabase } from '../../support/postgres';

const REPO = { host: 'github.com', owner: 'acme', name: 'shop' };
const PROXY = '10.9.0.2';

let pool: Pool;
let acmeKey: string;
let globexKey: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('outsider_budgets'));
  const keys = createApiKeyStore(pool);
  acmeKey = (await keys.create('acme')).key;
  globexKey = (await keys.create('globex')).key;
  await claimRepository(pool, 'acme', REPO);
});
afterAll(async () => {
  await pool.end();
});

const WRONG = 'ry_guessed-key-000000000000000000000000000000';

const getQueue = (app: FastifyInstance, key: string, via: { remoteAddress: string; client?: string }) =>
  app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    remoteAddress: via.remoteAddress,
    headers: {
      'content-type': 'application/json',
      'x-api-token': key,
      ...(via.client === undefined ? {} : { 'x-forwarded-for': via.client }),
    },
    payload: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
  });

describe('behind a trusted proxy, the budgets count the real client', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp(pool, { rateLimit: { max: 3, windowMs: 60_000 }, trustProxy: [PROXY] }));
  });
  afterAll(() => app.close());

  test("one client's wrong keys lock out that client, never another client of the same proxy", async () => {
    const attacker = { remoteAddress: PROXY, client: '203.0.113.7' };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await getQueue(app, WRONG, attacker)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await getQueue(app, WRONG, attacker);
    expect(limited.body).toMatch(
      /^Address 203\.0\.113\.7 sent more than 3 requests with an invalid API key in 60 seconds; retry after \d+ seconds\.$/,
    );
    // A tenant never seen before, through the same proxy: its key is looked up and works.
    const tenant = await getQueue(app, globexKey, { remoteAddress: PROXY, client: '198.51.100.4' });
    expect(tenant.statusCode).toBe(404);
  });

  test('a client reaching the API directly cannot choose its address with X-Forwarded-For', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await getQueue(app, WRONG, { remoteAddress: '192.0.2.50', client: `192.0.2.${i}` })).statusCode,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await getQueue(app, WRONG, { remoteAddress: '192.0.2.50', client: '192.0.2.99' });
    expect(limited.body).toMatch(/^Address 192\.0\.2\.50 sent more than 3 requests with an invalid API key/);
  });
});

describe('without a trusted proxy, every client shares the address', () => {
  let app: FastifyInstance;
  let lookups = 0;
  beforeAll(async () => {
    const keys = createApiKeyStore(pool);
    ({ app } = await buildTestApp(pool, {
      rateLimit: { max: 3, windowMs: 60_000 },
      keys: {
        ...keys,
        authenticate: (key) => {
          lookups++;
          return keys.authenticate(key);
        },
      },
    }));
  });
  afterAll(() => app.close());

  test('a key that authenticated recently keeps working through a flood of wrong keys; a revoked one stops', async () => {
    const shared = { remoteAddress: PROXY };
    const keys = createApiKeyStore(pool);
    const { key: leaving, summary } = await keys.create('acme', 'leaving');
    expect((await getQueue(app, acmeKey, shared)).statusCode).toBe(404);
    expect((await getQueue(app, leaving, shared)).statusCode).toBe(404);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await getQueue(app, WRONG, shared)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
    // Guesses past the budget are refused before any lookup.
    const before = lookups;
    expect((await getQueue(app, `${WRONG}x`, shared)).statusCode).toBe(429);
    expect(lookups).toBe(before);
    // acme's third request of the window (its own budget is 3 too).
    expect((await getQueue(app, acmeKey, shared)).statusCode).toBe(404);
    // Vouched for, but looked up every time: revoking it takes effect on the next request.
    expect(await keys.revoke(summary.id)).toBe(1);
    expect((await getQueue(app, leaving, shared)).statusCode).toBe(429);
  });
});

describe('traffic without a key: one bucket per kind and address', () => {
  let app: FastifyInstance;
  let publicId: string;
  beforeAll(async () => {
    ({ app } = await buildTestApp(pool, {
      rateLimit: { max: 3, windowMs: 60_000 },
      forkAuth: { publicIds: createRepositoryPublicIds(pool) },
    }));
    // Stand-ins at the paths of the GitHub webhook and executor routes (served only with their deps).
    app.post('/v1/github/webhooks', { config: { public: true } }, () => ({}));
    app.post('/v1/executor/jobs/claim', { config: { public: true } }, () => ({}));
    const listed = await app.inject({
      method: 'GET',
      url: '/v1/repositories',
      headers: { 'x-api-token': acmeKey },
    });
    publicId = listed
      .json<{ repositories: { name: string; public_id: string }[] }>()
      .repositories.find((r) => r.name === REPO.name)!.public_id;
  });
  afterAll(() => app.close());

  const from = '203.0.113.20';
  const ready = () => app.inject({ method: 'GET', url: '/readyz', remoteAddress: from });
  const webhook = () =>
    app.inject({ method: 'POST', url: '/v1/github/webhooks', remoteAddress: from, payload: {} });
  const executor = () =>
    app.inject({ method: 'POST', url: '/v1/executor/jobs/claim', remoteAddress: from, payload: {} });
  const bundlePut = () =>
    app.inject({
      method: 'PUT',
      url: `/v1/metrics/bundles/00000000-0000-4000-8000-000000000000?expires=4000000000&signature=${'a'.repeat(43)}`,
      remoteAddress: from,
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.from('x'),
    });
  const quarantine = () =>
    app.inject({
      method: 'POST',
      url: '/v1/metrics/getQuarantineConfig',
      remoteAddress: from,
      headers: { 'x-api-token': '', 'x-trunk-public-repo-id': publicId },
      payload: { repo: REPO, orgUrlSlug: 'acme', remoteUrls: [], testIdentifiers: [] },
    });

  test.each([
    ['/readyz', ready, 'requests'],
    ['GitHub webhooks', webhook, 'GitHub webhook deliveries'],
    ['bundle PUTs', bundlePut, 'bundle uploads'],
    ['executor requests', executor, 'executor requests'],
    ['public-id requests', quarantine, 'requests with a fork header instead of an API key'],
  ])('%s spend their own budget only', async (_kind, send, noun) => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await send()).statusCode);
    expect(statuses).not.toContain(429);
    const limited = await send();
    expect([limited.statusCode, limited.body]).toEqual([
      429,
      expect.stringMatching(
        new RegExp(
          `^Address 203\\.0\\.113\\.20 sent more than 3 ${noun} in 60 seconds; retry after \\d+ seconds\\.$`,
        ),
      ) as unknown,
    ]);
  });

  test("after every kind is spent, the owner's keyed requests from the same address still go through", async () => {
    // acme's budget is its own: 1 request (the listing above) + 2.
    for (let i = 0; i < 2; i++)
      expect((await getQueue(app, acmeKey, { remoteAddress: from })).statusCode).toBe(404);
  });
});

describe("public-id callers' upload URLs and slots", () => {
  let app: FastifyInstance;
  let publicId: string;
  let parsing = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // A JUnit file named slow.xml waits for the test to release it.
  const parser: JunitParser = {
    async parse(source, options) {
      if (options.fileName === 'reports/slow.xml') {
        parsing++;
        await released;
      }
      return inThreadJunitParser.parse(source, options);
    },
    close: () => Promise.resolve(),
  };
  beforeAll(async () => {
    ({ app } = await buildTestApp(pool, {
      forkAuth: { publicIds: createRepositoryPublicIds(pool) },
      flaky: { store: createFlakyStore(pool), pageTokenSecret: TEST_PAGE_TOKEN_SECRET, parser },
      bundleUploads: { pool, secret: TEST_PAGE_TOKEN_SECRET, maxLivePublicIdUploads: 2 },
      inFlight: { uploads: 4, lists: 4, publicIdUploads: 1 },
    }));
    const listed = await app.inject({
      method: 'GET',
      url: '/v1/repositories',
      headers: { 'x-api-token': acmeKey },
    });
    publicId = listed
      .json<{ repositories: { name: string; public_id: string }[] }>()
      .repositories.find((r) => r.name === REPO.name)!.public_id;
  });
  afterAll(() => app.close());

  const create = (headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/v1/metrics/createBundleUpload',
      headers,
      payload: { repo: REPO, orgUrlSlug: 'acme' },
    });
  const byPublicId = () => ({ 'x-api-token': '', 'x-trunk-public-repo-id': publicId });
  const byKey = () => ({ 'x-api-token': acmeKey });
  const urls: { public: string[]; keyed: string[] } = { public: [], keyed: [] };

  test('at most their own few live upload URLs; the owner’s keys keep theirs', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await create(byPublicId());
      expect(res.statusCode).toBe(200);
      urls.public.push(res.json<{ url: string }>().url);
    }
    const refused = await create(byPublicId());
    expect([refused.statusCode, refused.body]).toEqual([
      429,
      'Organisation acme already has 2 unexpired bundle upload URLs made with a public repository id; retry after 900 seconds.',
    ]);
    const keyed = await create(byKey());
    expect(keyed.statusCode).toBe(200);
    urls.keyed.push(keyed.json<{ url: string }>().url);
  });

  test('their uploads take slots of their own cap; a keyed upload still runs', async () => {
    const junit = (name: string) =>
      `<testsuites><testsuite name="s"><testcase classname="c" name="${name}"/></testsuite></testsuites>`;
    const bundle = (name: string) =>
      bundleOf([
        {
          name: 'meta.json',
          content: JSON.stringify(metaJson({ repo: REPO, junit: [`reports/${name}.xml`] })),
        },
        { name: 'junit/0', content: junit(name) },
      ]);
    const put = async (url: string, name: string) =>
      app.inject({
        method: 'PUT',
        url: url.replace(/^https?:\/\/[^/]+/, ''),
        headers: { 'content-type': 'application/octet-stream' },
        payload: await bundle(name),
      });
    const held = put(urls.public[0]!, 'slow');
    for (let i = 0; i < 1_000 && parsing === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(parsing).toBe(1);
    const second = await put(urls.public[1]!, 'fast');
    expect([second.statusCode, second.body]).toEqual([
      429,
      'Organisation acme already has 1 upload made with a public repository id in progress; retry after 1 second.',
    ]);
    const keyed = await put(urls.keyed[0]!, 'fast');
    expect(keyed.statusCode).toBe(200);
    release();
    expect((await held).statusCode).toBe(200);
  });
});
