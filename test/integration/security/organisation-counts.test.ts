/**
 * Counts per organisation (issue 11): merge queues and webhook subscriptions. Past its limit an
 * organisation gets a 409 naming the limit and the setting that raises it, and nothing is created;
 * another organisation is not affected; deleting one makes room again; creations racing at the limit
 * do not get past it together. The real API over HTTP, the real Temporal service and worker, with the
 * limits set low (3 queues, 2 subscriptions) through the same stores server.ts builds.
 */
import { createQueueQuota } from '../../../events/store/queue-quota';
import { createSubscriptionStore } from '../../../webhooks';
import { startLiveApi, type LiveApi } from './support/live-api';

const QUEUES = 3;
const SUBSCRIPTIONS = 2;
const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const queue = (targetBranch: string) => ({ repo: REPO, targetBranch });
const QUEUE_LIMIT = `Your organisation already has ${QUEUES} merge queues, the most it may have; delete one or ask your railyard operator to raise RAILYARD_MAX_QUEUES_PER_ORGANISATION.`;
const SUBSCRIPTION_LIMIT = `Your organisation already has ${SUBSCRIPTIONS} webhook subscriptions, the most it may have; delete one or ask your railyard operator to raise RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION.`;

let api: LiveApi;
let acme: string;
let globex: string;

beforeAll(async () => {
  api = await startLiveApi({
    appDeps: (pool) => ({
      queueQuota: createQueueQuota(pool, { maxPerOrganisation: QUEUES }),
      webhooks: {
        pool,
        subscriptions: createSubscriptionStore(pool, { maxPerOrganisation: SUBSCRIPTIONS }),
        allowPrivateUrls: true,
      },
    }),
  });
  acme = await api.key('acme');
  globex = await api.key('globex');
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const answer = (res: { status: number; body: string }) => ({ status: res.status, body: res.body });

async function request(method: string, route: string, key: string, body?: unknown) {
  const res = await fetch(`${api.url}${route}`, {
    method,
    headers: { 'x-api-token': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.text() };
}

test('merge queues: a 409 past the limit, for this organisation only, until one is deleted', async () => {
  for (const branch of ['main', 'release', 'next']) {
    expect(answer(await api.post('/v1/createQueue', queue(branch), acme))).toEqual({
      status: 200,
      body: '{}',
    });
  }
  expect(answer(await api.post('/v1/createQueue', queue('fourth'), acme))).toEqual({
    status: 409,
    body: QUEUE_LIMIT,
  });
  // Nothing was started for the refused one.
  expect((await api.post('/v1/getQueue', queue('fourth'), acme)).status).toBe(404);
  // An existing queue is still answered as such, not as one too many.
  expect(answer(await api.post('/v1/createQueue', queue('main'), acme))).toEqual({
    status: 409,
    body: 'A merge queue already exists for branch "main" in this repository.',
  });
  // The other organisation has its own count.
  const theirs = { repo: { ...REPO, owner: 'globex' }, targetBranch: 'main' };
  expect(answer(await api.post('/v1/createQueue', theirs, globex))).toEqual({ status: 200, body: '{}' });

  expect(answer(await api.post('/v1/deleteQueue', queue('next'), acme))).toEqual({ status: 200, body: '{}' });
  expect(answer(await api.post('/v1/createQueue', queue('fourth'), acme))).toEqual({
    status: 200,
    body: '{}',
  });
  expect((await api.post('/v1/createQueue', queue('fifth'), acme)).status).toBe(409);
}, 60_000);

test('merge queues: creations racing for the last place do not get past the limit together', async () => {
  expect((await api.post('/v1/deleteQueue', queue('fourth'), acme)).status).toBe(200);
  const raced = await Promise.all(
    ['r1', 'r2', 'r3', 'r4'].map((branch) => api.post('/v1/createQueue', queue(branch), acme)),
  );
  expect(raced.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
  const { rows } = await api.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM event_log_queues q JOIN organisations o ON o.id = q.organisation_id
      WHERE o.slug = 'acme'`,
  );
  expect(rows[0]?.n).toBe(QUEUES);
}, 60_000);

test('webhook subscriptions: a 409 past the limit, for this organisation only, until one is deleted', async () => {
  const create = (key: string) =>
    request('POST', '/v1/webhooks/subscriptions', key, { url: 'http://127.0.0.1:9/hook', enabled: false });
  const created = [await create(acme), await create(acme)];
  expect(created.map((r) => r.status)).toEqual([201, 201]);
  expect(answer(await create(acme))).toEqual({ status: 409, body: SUBSCRIPTION_LIMIT });
  expect((await create(globex)).status).toBe(201);
  const list = JSON.parse((await request('GET', '/v1/webhooks/subscriptions', acme)).body) as {
    subscriptions: { id: string }[];
  };
  expect(list.subscriptions).toHaveLength(SUBSCRIPTIONS);

  const first = (JSON.parse(created[0]!.body) as { id: string }).id;
  expect((await request('DELETE', `/v1/webhooks/subscriptions/${first}`, acme)).status).toBe(204);
  // One place is free: of three racing for it, one gets it.
  const raced = await Promise.all([create(acme), create(acme), create(acme)]);
  expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  expect(raced.filter((r) => r.status === 409).map((r) => r.body)).toEqual([
    SUBSCRIPTION_LIMIT,
    SUBSCRIPTION_LIMIT,
  ]);
}, 60_000);
