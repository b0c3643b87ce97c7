/**
 * An organisation's requests per second hold across API replicas (issue 27): two API apps on one
 * PostgreSQL, each with its census (platform/replica-census.ts on stores/replicas.ts), admit together
 * exactly the configured figure — each its share — and the refusal says the limit is split. The census
 * counts a live process, forgets one that stopped or stopped beating, and keeps its last count while
 * the database cannot be reached.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createReplicaStore } from '../../../stores/replicas';
import { createReplicaCensus, type ReplicaCensus } from '../../../platform/replica-census';
import { shareOf } from '../../../api/plugins/rate-limit';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
const censuses: ReplicaCensus[] = [];

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('replica_limits'));
});

afterAll(async () => {
  for (const c of censuses) await c.stop();
  await pool.end();
});

function census(
  kind: string,
  opts: { pool?: Pool; warn?: (m: string) => void; staleMs?: number } = {},
): ReplicaCensus {
  const c = createReplicaCensus({
    store: createReplicaStore(opts.pool ?? pool),
    kind,
    id: randomUUID(),
    intervalMs: 50,
    staleMs: opts.staleMs ?? 2_000,
    ...(opts.warn ? { warn: opts.warn } : {}),
  });
  censuses.push(c);
  return c;
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (const end = Date.now() + 10_000; !check(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

test('a process is its own share at first; the shares round up and never reach 0', () => {
  expect([shareOf(100, 1), shareOf(100, 2), shareOf(100, 3), shareOf(1, 4), shareOf(5, 0)]).toEqual([
    100, 50, 34, 1, 5,
  ]);
});

test('the census counts the live processes of its kind, and forgets one that stopped or went silent', async () => {
  const kind = `api-${randomUUID()}`;
  const a = census(kind);
  await a.start();
  expect(a.count()).toBe(1);
  const b = census(kind);
  await b.start();
  expect(b.count()).toBe(2);
  await until('the first process seeing the second', () => a.count() === 2);
  // Another kind is not counted; a row that stopped beating is past the staleness window.
  await census(`worker-${randomUUID()}`).start();
  await pool.query(
    `INSERT INTO process_replicas (kind, id, last_seen) VALUES ($1, 'silent', now() - interval '1 minute')`,
    [kind],
  );
  await new Promise((r) => setTimeout(r, 200));
  expect([a.count(), b.count()]).toEqual([2, 2]);
  await b.stop();
  await until('the stopped process leaving the count', () => a.count() === 1);
});

test('while the database cannot be reached the last count stands, said once', async () => {
  const kind = `api-${randomUUID()}`;
  const warnings: string[] = [];
  await census(kind).start();
  const { pool: own } = await createMigratedDatabase('replica_limits_down');
  // The second process uses a pool of its own database, which the test then closes under it.
  const shared = census(kind, { warn: (m) => warnings.push(m) });
  await shared.start();
  expect(shared.count()).toBe(2);
  const lonely = census(kind, { pool: own, warn: (m) => warnings.push(m) });
  await lonely.start();
  expect(lonely.count()).toBe(1); // its own database: alone there
  await own.end();
  await until('a failed beat', () => warnings.length > 0);
  await new Promise((r) => setTimeout(r, 200));
  expect(lonely.count()).toBe(1);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(
    /^the api-.* replica census cannot reach the database \(.*\); limits keep the last count, 1$/,
  );
});

describe('two API replicas', () => {
  let apps: FastifyInstance[];
  let key: string;
  beforeAll(async () => {
    const kind = `api-${randomUUID()}`;
    // Neither goes stale during the burst: on a loaded machine a beat came more than 2 s late once, the
    // other replica counted itself alone and admitted its whole figure (7 admitted, not 6).
    const [a, b] = [census(kind, { staleMs: 60_000 }), census(kind, { staleMs: 60_000 })];
    await a.start();
    await b.start();
    await until('both replicas counted', () => a.count() === 2 && b.count() === 2);
    apps = await Promise.all(
      [a, b].map(async (c) => {
        // A long window, so a slow machine cannot spill the burst into the next one.
        const { app } = await buildTestApp(pool, {
          rateLimit: { max: 6, windowMs: 60_000, replicas: () => c.count() },
        });
        return app;
      }),
    );
    key = (await createApiKeyStore(pool).create(`replicas-${randomUUID().slice(0, 8)}`)).key;
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  const getQueue = (app: FastifyInstance) =>
    app.inject({
      method: 'POST',
      url: '/v1/getQueue',
      headers: { 'content-type': 'application/json', 'x-api-token': key },
      payload: JSON.stringify({ repo: { host: 'github.com', owner: 'o', name: 'r' }, targetBranch: 'main' }),
    });

  test('admit together the configured figure, each its share, and say the limit is split', async () => {
    let admitted = 0;
    for (const app of apps) {
      for (let i = 0; i < 5; i++) if ((await getQueue(app)).statusCode !== 429) admitted++;
    }
    expect(admitted).toBe(6);
    const refused = await getQueue(apps[0]!);
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toMatch(
      /^Organisation replicas-\w+ sent more than 3 requests in 60 seconds to this API process \(the limit of 6 is split over 2\); retry after \d+ seconds?\.$/,
    );
  });
});
