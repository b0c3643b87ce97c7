/**
 * Per-organisation limits on the real app (real PostgreSQL for keys, ownership and uploads):
 *
 * - requests per window: past the limit an organisation gets 429 with Retry-After and one sentence,
 *   while another organisation's requests go on; requests without a key are counted per address, and
 *   /healthz is never limited; an address sending wrong keys is refused before they are looked up;
 * - in flight: with the caps full, one more upload or list query of the same organisation is a 429 at
 *   once, another organisation's goes through, and a slot freed is usable again. Handlers are held
 *   open by a parser and a merge-queue listing that wait for the test to release them.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { inThreadJunitParser, type JunitParser } from '../../../flaky/junit';
import { createFlakyStore } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { GUARDED_ROUTES } from '../../../api/plugins/in-flight';
import type { MergeQueueService } from '../../../api/routes/merge-queue';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

const REPO_A = { host: 'github.com', owner: 'acme', name: 'app' };
const REPO_B = { host: 'github.com', owner: 'beta', name: 'app' };
const JUNIT = '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>';

let pool: Pool;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('tenant_limits'));
  const keys = createApiKeyStore(pool);
  keyA = (await keys.create('acme')).key;
  keyB = (await keys.create('beta')).key;
});

afterAll(async () => {
  await pool.end();
});

const post = (app: FastifyInstance, url: string, key: string | undefined, body: object) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-token': key }) },
    payload: JSON.stringify(body),
  });

/** A promise the test resolves by hand, to hold a handler open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Resolves once `check` holds (handlers start after authentication and the ownership check). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

function expectLimited(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // One sentence: ends with a period and has no other sentence end inside.
  expect(res.body).toMatch(/^[^\n]+\.$/);
  expect(res.body.slice(0, -1)).not.toMatch(/\.\s/);
}

describe('requests per window', () => {
  let app: FastifyInstance;
  // A long window, so a slow machine cannot spill the burst into the next one.
  beforeAll(async () => {
    ({ app } = await buildTestApp(pool, { rateLimit: { max: 5, windowMs: 60_000 } }));
  });
  afterAll(() => app.close());

  const getQueue = (key: string | undefined, repo = REPO_A) =>
    post(app, '/v1/getQueue', key, { repo, targetBranch: 'main' });

  test('past the limit an organisation gets 429 with Retry-After; another organisation does not', async () => {
    for (let i = 0; i < 5; i++) expect((await getQueue(keyA)).statusCode).not.toBe(429);
    const limited = await getQueue(keyA);
    expectLimited(limited);
    expect(limited.body).toBe(
      `Organisation acme sent more than 5 requests in 60 seconds; retry after ${String(limited.headers['retry-after'])} seconds.`,
    );
    // A flood by acme (its second key included) spends only acme's budget.
    const secondKey = (await createApiKeyStore(pool).create('acme', 'second')).key;
    expectLimited(await getQueue(secondKey));
    for (let i = 0; i < 5; i++) expect((await getQueue(keyB, REPO_B)).statusCode).not.toBe(429);
    expectLimited(await getQueue(keyB, REPO_B));
  });

  test('requests without a key are counted per address; /healthz is never limited', async () => {
    const ready = (ip: string) => app.inject({ method: 'GET', url: '/readyz', remoteAddress: ip });
    for (let i = 0; i < 5; i++) expect((await ready('10.0.0.1')).statusCode).toBe(200);
    const limited = await ready('10.0.0.1');
    expectLimited(limited);
    expect(limited.body).toMatch(/^Address 10\.0\.0\.1 sent more than 5 requests in 60 seconds; retry after/);
    expect((await ready('10.0.0.2')).statusCode).toBe(200);
    for (let i = 0; i < 20; i++)
      expect(
        (await app.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.0.0.1' })).statusCode,
      ).toBe(200);
  });
});

describe('wrong keys', () => {
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

  const getQueue = (key: string, ip: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      remoteAddress: ip,
      headers: { 'content-type': 'application/json', 'x-api-token': key },
      payload: JSON.stringify({ repo: REPO_A, targetBranch: 'main' }),
    });

  test('an address guessing keys is refused before any lookup; other addresses are not', async () => {
    const guess = 'ry_guessed-key-000000000000000000000000000000';
    for (let i = 0; i < 3; i++) expect((await getQueue(guess, '10.0.0.9')).statusCode).toBe(401);
    const limited = await getQueue(guess, '10.0.0.9');
    expectLimited(limited);
    expect(limited.body).toMatch(
      /^Address 10\.0\.0\.9 sent more than 3 requests with an invalid API key in 60 seconds; retry after \d+ seconds\.$/,
    );
    expect(lookups).toBe(3);
    expect((await getQueue(keyA, '10.0.0.10')).statusCode).not.toBe(429);
  });
});

describe('in flight', () => {
  const listGate = gate();
  const parseGate = gate();
  let listing = 0;
  let parsing = 0;
  let app: FastifyInstance;

  // acme's listings of its queue wait for listGate; beta's answer at once.
  const listPullRequests: MergeQueueService['listPullRequests'] = async (org) => {
    if (org.slug === 'acme') {
      listing++;
      await listGate.opened;
    }
    return { pullRequests: [] };
  };
  // A file named slow.xml waits for parseGate before it is parsed.
  const parser: JunitParser = {
    async parse(source, options) {
      if (options.fileName === 'slow.xml') {
        parsing++;
        await parseGate.opened;
      }
      return inThreadJunitParser.parse(source, options);
    },
    close: () => Promise.resolve(),
  };

  beforeAll(async () => {
    ({ app } = await buildTestApp(pool, {
      inFlight: { uploads: 1, lists: 2 },
      mergeQueue: { getQueue: () => Promise.resolve(null), listPullRequests },
      flaky: { store: createFlakyStore(pool), pageTokenSecret: TEST_PAGE_TOKEN_SECRET, parser },
    }));
    for (const [key, repo] of [
      [keyA, REPO_A],
      [keyB, REPO_B],
    ] as const)
      expect((await post(app, '/v1/repositories/claim', key, { repo })).statusCode).toBe(200);
  });
  afterAll(() => app.close());

  test('every guarded route exists (a stale table entry would guard nothing)', () => {
    for (const route of GUARDED_ROUTES.keys()) {
      const [method, url] = route.split(' ') as [string, string];
      expect([route, app.hasRoute({ method, url })]).toEqual([route, true]);
    }
  });

  test('list queries: the cap is per organisation and a freed slot is usable again', async () => {
    const list = (key: string, repo: object) =>
      post(app, '/v1/listPullRequests', key, { repo, targetBranch: 'main' });
    const held = [list(keyA, REPO_A), list(keyA, REPO_A)];
    await until(() => listing === 2);

    const refused = await list(keyA, REPO_A);
    expectLimited(refused);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toBe(
      'Organisation acme already has 2 list queries in progress; retry after 1 second.',
    );
    expect(listing).toBe(2);
    expect((await list(keyB, REPO_B)).statusCode).toBe(200);

    listGate.open();
    for (const res of await Promise.all(held)) expect(res.statusCode).toBe(200);
    expect((await list(keyA, REPO_A)).statusCode).toBe(200);
  });

  test('uploads: the cap is per organisation and a freed slot is usable again', async () => {
    const upload = (key: string, slug: string, repo: object, uploadId: string, file: string) =>
      post(app, '/v1/flaky-tests/upload', key, {
        repo,
        org_url_slug: slug,
        upload_id: uploadId,
        commit_sha: 'c0ffee1',
        branch: 'main',
        files: [{ name: file, content: JUNIT }],
      });
    const held = upload(keyA, 'acme', REPO_A, 'a-1', 'slow.xml');
    await until(() => parsing === 1);

    const refused = await upload(keyA, 'acme', REPO_A, 'a-2', 'fast.xml');
    expectLimited(refused);
    expect(refused.body).toBe('Organisation acme already has 1 upload in progress; retry after 1 second.');
    const other = await upload(keyB, 'beta', REPO_B, 'b-1', 'fast.xml');
    expect([other.statusCode, other.body]).toEqual([200, expect.stringContaining('"created":true')]);

    parseGate.open();
    expect((await held).statusCode).toBe(200);
    expect((await upload(keyA, 'acme', REPO_A, 'a-2', 'fast.xml')).statusCode).toBe(200);
  });
});
