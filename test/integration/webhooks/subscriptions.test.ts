/**
 * The webhook subscription endpoints against the real PostgreSQL: create, list, read, update, delete;
 * the secret shown once and never again; the URL policy (private and loopback receivers refused unless
 * allowed); field-naming 400s; another organisation gets 404 for everything.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createSubscriptionStore } from '../../../webhooks';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let app: FastifyInstance;
let strict: FastifyInstance;
let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('webhook_subs'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  otherKey = (await keys.create('globex')).key;
  ({ app } = await buildTestApp(pool));
  // As in production by default: no private receivers; DNS answered by a fake resolver.
  ({ app: strict } = await buildTestApp(pool, {
    webhooks: {
      pool,
      subscriptions: createSubscriptionStore(pool),
      allowPrivateUrls: false,
      lookup: (host) =>
        host === 'internal.example' ? Promise.resolve(['10.0.0.7']) : Promise.resolve(['93.184.216.34']),
    },
  }));
});

afterAll(async () => {
  await Promise.all([app.close(), strict.close()]);
  await pool.end();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, body?: object, token = key, on = app) =>
  on.inject({
    method,
    url: `/v1/webhooks${url}`,
    headers: { 'x-api-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });

test('create → 201 with the secret; list, read and update never show it again; delete → 204', async () => {
  const created = await call('POST', '/subscriptions', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['pull_request.merged', 'pull_request_batch.merged'],
    description: 'deploy bot',
  });
  expect(created.statusCode).toBe(201);
  const sub = created.json();
  expect(sub).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    url: 'http://127.0.0.1:9/hook',
    description: 'deploy bot',
    eventTypes: ['pull_request.merged', 'pull_request_batch.merged'],
    enabled: true,
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
    secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
  });
  const { secret, ...shown } = sub;

  const list = await call('GET', '/subscriptions');
  expect(list.json()).toEqual({ subscriptions: [shown] });
  const read = await call('GET', `/subscriptions/${sub.id}`);
  expect(read.json()).toEqual(shown);

  const updated = await call('PATCH', `/subscriptions/${sub.id}`, { enabled: false, eventTypes: [] });
  expect(updated.statusCode).toBe(200);
  expect(updated.json()).toMatchObject({
    id: sub.id,
    enabled: false,
    eventTypes: [],
    description: 'deploy bot',
  });
  const deliveries = await call('GET', `/subscriptions/${sub.id}/deliveries`);
  expect(deliveries.json()).toEqual({ deliveries: [] });
  for (const response of [list, read, updated, deliveries]) expect(response.body).not.toContain(secret);

  const deleted = await call('DELETE', `/subscriptions/${sub.id}`);
  expect([deleted.statusCode, deleted.body, deleted.headers['content-type']]).toEqual([204, '', undefined]);
  expect((await call('GET', `/subscriptions/${sub.id}`)).statusCode).toBe(404);
  expect((await call('DELETE', `/subscriptions/${sub.id}`)).statusCode).toBe(404);
});

test('each creation gets its own secret; defaults: every event type, enabled', async () => {
  const a = (await call('POST', '/subscriptions', { url: 'https://hooks.example.com/a' })).json();
  const b = (await call('POST', '/subscriptions', { url: 'https://hooks.example.com/b' })).json();
  expect(a.secret).not.toBe(b.secret);
  expect(a).toMatchObject({ eventTypes: [], enabled: true, description: '' });
});

test('another organisation: 404 for read, update, delete and deliveries; its list is empty', async () => {
  const sub = (await call('POST', '/subscriptions', { url: 'https://hooks.example.com/x' })).json();
  const message = `Webhook subscription ${sub.id} was not found.`;
  for (const [method, url, body] of [
    ['GET', `/subscriptions/${sub.id}`],
    ['PATCH', `/subscriptions/${sub.id}`, { enabled: false }],
    ['DELETE', `/subscriptions/${sub.id}`],
    ['GET', `/subscriptions/${sub.id}/deliveries`],
  ] as const) {
    const response = await call(method, url, body, otherKey);
    expect({ method, url, status: response.statusCode, body: response.body }).toEqual({
      method,
      url,
      status: 404,
      body: message,
    });
  }
  expect((await call('GET', '/subscriptions', undefined, otherKey)).json()).toEqual({ subscriptions: [] });
  expect((await call('GET', `/subscriptions/${sub.id}`)).statusCode).toBe(200);
});

test.each([
  [
    'http://127.0.0.1:8080/hook',
    "Field 'url' points at a private or loopback address, which this server does not allow.",
  ],
  [
    'http://[::1]/hook',
    "Field 'url' points at a private or loopback address, which this server does not allow.",
  ],
  [
    'http://169.254.169.254/latest/meta-data',
    "Field 'url' points at a private or loopback address, which this server does not allow.",
  ],
  [
    'https://internal.example/hook',
    "Field 'url' resolves to a private or loopback address, which this server does not allow.",
  ],
  ['ftp://hooks.example.com/x', "Field 'url' must be an http or https URL."],
  ['hooks.example.com/x', "Field 'url' is not a valid URL."],
])('without the operator opt-in, %s → 400', async (url, message) => {
  const response = await call('POST', '/subscriptions', { url }, key, strict);
  expect(response.statusCode).toBe(400);
  expect(response.body).toBe(message);
});

test('the URL policy applies to updates too; a public URL is accepted', async () => {
  const created = await call('POST', '/subscriptions', { url: 'https://hooks.example.com/ok' }, key, strict);
  expect(created.statusCode).toBe(201);
  const update = await call(
    'PATCH',
    `/subscriptions/${created.json().id}`,
    { url: 'http://10.1.1.1/' },
    key,
    strict,
  );
  expect(update.statusCode).toBe(400);
});

test.each([
  [
    { url: 'https://x.example/h', eventTypes: ['pull_request.tests_passed'] },
    "Field 'eventTypes[0]' must be one of:",
  ],
  [{ url: 'https://x.example/h', secret: 'whsec_mine' }, "The request has unknown field 'secret'."],
  [{ eventTypes: [] }, "Field 'url' is required."],
  [{ url: 'https://x.example/h', enabled: 'yes' }, "Field 'enabled' must be a boolean."],
])('a bad body → 400 naming the field (%j)', async (body, message) => {
  const response = await call('POST', '/subscriptions', body);
  expect(response.statusCode).toBe(400);
  expect(response.body.startsWith(message)).toBe(true);
});

test('malformed ids are 400s; the event-type catalogue lists Trunk names', async () => {
  expect((await call('GET', '/subscriptions/not-a-uuid')).statusCode).toBe(400);
  expect((await call('GET', '/deliveries/msg_x')).statusCode).toBe(400);
  const types = (await call('GET', '/event-types')).json().eventTypes;
  expect(types).toEqual(
    expect.arrayContaining([
      'pull_request.submitted',
      'pull_request.canceled',
      'pull_request_batch.pending_failure',
      'test_case.status_changed',
      'test_case.quarantining_setting_changed',
      'pull_request.checks_stalled',
    ]),
  );
  expect(types).toHaveLength(15);
});

test('without an API key → 401', async () => {
  const response = await app.inject({ method: 'GET', url: '/v1/webhooks/subscriptions' });
  expect(response.statusCode).toBe(401);
});
