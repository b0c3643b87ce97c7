/**
 * The API under database pressure, with the pools the API process builds (api/pools.ts) on the real
 * PostgreSQL:
 *
 * - key lookups have connections of their own: with every connection of the routes' pool taken by
 *   slow statements, a request still gets past authentication (its 400 or 401) at once, instead of
 *   waiting behind them;
 * - a request that needs the taken pool answers 503 with a sentence once the pool's connect timeout
 *   passes, not 500;
 * - a heavy statement past RAILYARD_API_STATEMENT_TIMEOUT_MS (here: a flaky-test list and an upload
 *   that wait on a lock the test holds) is cancelled by PostgreSQL and answered 503 with a sentence
 *   and Retry-After, with no driver message in the body.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createFlakyStore } from '../../../flaky/service';
import { createApiPools, type ApiPools } from '../../../api/pools';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const JUNIT = '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>';

let url: string;
let setup: Pool;
let key: string;
let revokedKey: string;

beforeAll(async () => {
  ({ url, pool: setup } = await createMigratedDatabase('api_db_pressure'));
  const keys = createApiKeyStore(setup);
  key = (await keys.create('acme')).key;
  const revoked = await keys.create('acme', 'old');
  revokedKey = revoked.key;
  await keys.revoke(revoked.summary.id);
});

afterAll(async () => {
  await setup.end();
});

async function appOn(pools: ApiPools): Promise<FastifyInstance> {
  const { app } = await buildTestApp(pools.main, {
    keys: createApiKeyStore(pools.keys),
    flaky: { store: createFlakyStore(pools.main), pageTokenSecret: TEST_PAGE_TOKEN_SECRET },
  });
  return app;
}

const post = (app: FastifyInstance, path: string, body: string, token = key) =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    payload: body,
  });

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe('routes pool taken by slow statements', () => {
  let pools: ApiPools;
  let app: FastifyInstance;
  let sleepers: Promise<unknown>[];

  beforeAll(async () => {
    pools = createApiPools({
      DATABASE_URL: url,
      RAILYARD_API_POOL_SIZE: 2,
      RAILYARD_API_KEY_POOL_SIZE: 2,
      RAILYARD_API_STATEMENT_TIMEOUT_MS: 30_000,
    });
    app = await appOn(pools);
    sleepers = [0, 1].map(() => pools.main.query('SELECT pg_sleep(8)').catch(() => undefined));
    for (let i = 0; i < 200 && (pools.main.totalCount < 2 || pools.main.idleCount > 0); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect([pools.main.totalCount, pools.main.idleCount]).toEqual([2, 0]);
  });

  afterAll(async () => {
    await app.close();
    await Promise.all(sleepers);
    await pools.end();
  });

  test('authentication does not wait for them', async () => {
    // Past authentication, the missing targetBranch is a 400 that needs no database at all.
    const valid = await timed(post(app, '/v1/getQueue', JSON.stringify({ repo: REPO })));
    expect([valid.value.statusCode, valid.value.body]).toEqual([
      400,
      expect.stringContaining('targetBranch'),
    ]);
    const revoked = await timed(post(app, '/v1/getQueue', '{}', revokedKey));
    expect(revoked.value.statusCode).toBe(401);
    // The sleepers hold the routes' connections for 8 s; sharing them would take seconds, not this.
    expect(valid.ms).toBeLessThan(1_500);
    expect(revoked.ms).toBeLessThan(1_500);
  });

  test('a request that needs the taken pool answers 503 with a sentence, not 500', async () => {
    const res = await post(
      app,
      '/v1/flaky-tests/list-quarantined-tests',
      JSON.stringify({ repo: REPO, org_url_slug: 'acme', page_query: { page_size: 10 } }),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toBe('The database is busy with other requests; retry in a few seconds.');
  });
});

describe('statement timeout', () => {
  let pools: ApiPools;
  let app: FastifyInstance;
  let locker: PoolClient;

  beforeAll(async () => {
    pools = createApiPools({
      DATABASE_URL: url,
      RAILYARD_API_POOL_SIZE: 4,
      RAILYARD_API_KEY_POOL_SIZE: 2,
      RAILYARD_API_STATEMENT_TIMEOUT_MS: 300,
    });
    app = await appOn(pools);
    expect((await post(app, '/v1/repositories/claim', JSON.stringify({ repo: REPO }))).statusCode).toBe(200);
    // Every list and upload reads or writes test_cases; holding this lock makes them wait.
    locker = await setup.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE test_cases IN ACCESS EXCLUSIVE MODE');
  });

  afterAll(async () => {
    await locker.query('ROLLBACK');
    locker.release();
    await app.close();
    await pools.end();
  });

  const TIMED_OUT =
    'The database did not finish this request in the time allowed; retry later or ask for less (a shorter time range or a smaller page).';

  test('a list query past it answers 503 with a sentence', async () => {
    const res = await timed(
      post(
        app,
        '/v1/flaky-tests/list-quarantined-tests',
        JSON.stringify({ repo: REPO, org_url_slug: 'acme', page_query: { page_size: 10 } }),
      ),
    );
    expect([res.value.statusCode, res.value.body]).toEqual([503, TIMED_OUT]);
    expect(res.value.headers['retry-after']).toBe('1');
    expect(res.ms).toBeLessThan(5_000);
  });

  test('an upload past it answers 503 with a sentence', async () => {
    const res = await post(
      app,
      '/v1/flaky-tests/upload',
      JSON.stringify({
        repo: REPO,
        org_url_slug: 'acme',
        upload_id: 'u-1',
        commit_sha: 'c0ffee1',
        branch: 'main',
        files: [{ name: 'a.xml', content: JUNIT }],
      }),
    );
    expect([res.statusCode, res.body]).toEqual([503, TIMED_OUT]);
  });
});
