/**
 * POST /v1/github/webhooks over real HTTP on the real PostgreSQL (docs/github.md "Webhooks"):
 * signatures are checked on the raw body before anything is stored, each delivery id is stored once,
 * installation events change the linked organisation's repositories, unlinked installations are
 * stored and left alone, and the webhook secret never reaches an answer or the log.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { signatureOf } from '../../../github/inbound/webhook-signature';
import { createWebhookReceiver, type WebhookReceiver } from '../../../github/inbound/webhook-receiver';
import { createGitHubOwnerLookup } from '../../../github/store/owner-lookup';
import { createGitHubInstallationStore } from '../../../github/store/installations';
import { createWebhookDeliveryStore } from '../../../github/store/webhook-deliveries';
import { BODY_LIMIT_BYTES } from '../../../api/app';
import { buildTestApp, type CapturedLog } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

const SECRET = `whsec-${randomUUID()}`;
let pool: Pool;
let app: FastifyInstance;
let log: CapturedLog;
let receiver: WebhookReceiver;
let url: string;
let nextInstallation = 5_000;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('github_webhooks'));
  const installations = createGitHubInstallationStore(pool);
  receiver = createWebhookReceiver({
    deliveries: createWebhookDeliveryStore(pool),
    installations,
    owners: createGitHubOwnerLookup(pool, 'github.com'),
    // Hints to queues are tested with real queue workflows in queue-hints.test.ts.
    hinter: { hintRepository: () => Promise.resolve({ hinted: 0, ended: 0, failed: 0, truncated: false }) },
    onError: () => undefined,
  });
  ({ app, log } = await buildTestApp(pool, { gitHubWebhooks: { secret: SECRET, receiver } }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}/v1/github/webhooks`;
});
afterAll(async () => {
  await app?.close();
  await pool?.end();
});

interface Delivery {
  event?: string;
  id?: string;
  body?: string;
  signature?: string | null;
}

async function deliver(d: Delivery & { payload?: unknown }) {
  const id = d.id ?? randomUUID();
  const body = d.body ?? JSON.stringify(d.payload ?? { zen: 'Keep it logically awesome.' });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (d.event !== undefined) headers['x-github-event'] = d.event;
  headers['x-github-delivery'] = id;
  if (d.signature !== null) headers['x-hub-signature-256'] = d.signature ?? signatureOf(SECRET, body);
  const res = await fetch(url, { method: 'POST', headers, body });
  await receiver.idle();
  return { id, status: res.status, text: await res.text() };
}

const rows = async (id: string) =>
  (
    await pool.query<{
      event: string;
      action: string | null;
      installation_id: string | null;
      outcome: string;
    }>(
      'SELECT event, action, installation_id, outcome FROM github_webhook_deliveries WHERE delivery_id = $1',
      [id],
    )
  ).rows;

async function linkedInstallation(repos: string[]) {
  const id = ++nextInstallation;
  const account = `acct${id}`;
  const { rows: org } = await pool.query<{ id: string }>(
    'INSERT INTO organisations (slug) VALUES ($1) RETURNING id',
    [`org-${randomUUID().slice(0, 8)}`],
  );
  const store = createGitHubInstallationStore(pool);
  await store.link(
    org[0]!.id,
    { installationId: id, host: 'github.com', accountLogin: account, suspendedAt: null },
    'operator',
  );
  await store.syncRepositories(
    id,
    repos.map((name) => ({ owner: account, name })),
  );
  return { id, account, organisationId: org[0]!.id };
}

const ownedBy = async (organisationId: string) =>
  (
    await pool.query<{ name: string }>(
      "SELECT owner || '/' || name AS name FROM repository_owners WHERE organisation_id = $1 ORDER BY 1",
      [organisationId],
    )
  ).rows.map((r) => r.name);

const repositoriesEvent = (id: number, action: 'added' | 'removed', names: string[]) => ({
  action,
  installation: { id, account: { login: 'ignored' }, extra: true },
  repository_selection: 'selected',
  [`repositories_${action}`]: names.map((full_name) => ({ id: 1, full_name, private: true })),
  sender: { login: 'someone' },
});

test('a well-signed delivery is answered 200 and stored once, even when GitHub sends it again', async () => {
  const first = await deliver({ event: 'ping', payload: { zen: 'Design for failure.', hook_id: 1 } });
  expect(first.status).toBe(200);
  expect(JSON.parse(first.text)).toEqual({ delivery: first.id, stored: true });
  const again = await deliver({ event: 'ping', id: first.id, payload: { zen: 'changed' } });
  expect(again.status).toBe(200);
  expect(JSON.parse(again.text)).toEqual({ delivery: first.id, stored: false });
  const stored = await pool.query<{ payload: { zen: string } }>(
    'SELECT payload FROM github_webhook_deliveries WHERE delivery_id = $1',
    [first.id],
  );
  expect(stored.rows.map((r) => r.payload.zen)).toEqual(['Design for failure.']);
  expect((await rows(first.id))[0]).toMatchObject({ event: 'ping', outcome: 'not acted on' });
});

test('a payload holding NUL characters (which PostgreSQL text cannot hold) is stored with U+FFFD, not a 500', async () => {
  const sent = await deliver({
    event: 'ping',
    payload: { zen: 'a\u0000b', action: 'x\u0000', repository: { full_name: 'o/r\u0000' } },
  });
  expect(sent.status).toBe(200);
  const stored = await pool.query<{ payload: { zen: string }; action: string | null }>(
    'SELECT payload, action FROM github_webhook_deliveries WHERE delivery_id = $1',
    [sent.id],
  );
  expect(stored.rows).toEqual([{ payload: expect.objectContaining({ zen: 'a\ufffdb' }), action: 'x\ufffd' }]);
});

test('a missing or wrong signature is a 401 and nothing is stored', async () => {
  const body = JSON.stringify({ action: 'deleted', installation: { id: 1 } });
  const cases = [
    await deliver({ event: 'installation', body, signature: null }),
    await deliver({ event: 'installation', body, signature: signatureOf('not-the-secret', body) }),
    await deliver({ event: 'installation', body, signature: signatureOf(SECRET, `${body} `) }),
    await deliver({ event: 'installation', body, signature: 'sha256=zz' }),
  ];
  for (const c of cases) {
    expect(c.status).toBe(401);
    expect(c.text).toMatch(/X-Hub-Signature-256/);
    expect(await rows(c.id)).toEqual([]);
  }
});

test('missing event or delivery headers and bodies that are not JSON are 400s', async () => {
  const noEvent = await deliver({});
  expect(noEvent.status).toBe(400);
  expect(noEvent.text).toMatch(/X-GitHub-Event/);
  const body = 'payload=%7B%7D';
  const notJson = await deliver({ event: 'ping', body });
  expect(notJson.status).toBe(400);
  expect(notJson.text).toMatch(/not JSON/);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-hub-signature-256': signatureOf(SECRET, '{}'),
    },
    body: '{}',
  });
  expect(res.status).toBe(400);
  expect(await res.text()).toMatch(/X-GitHub-Delivery/);
});

test('installation_repositories added and removed change the linked organisation repositories', async () => {
  const i = await linkedInstallation(['app']);
  expect(await ownedBy(i.organisationId)).toEqual([`${i.account}/app`]);
  const added = await deliver({
    event: 'installation_repositories',
    payload: repositoriesEvent(i.id, 'added', [`${i.account}/lib`, `${i.account}/web`]),
  });
  expect(added.status).toBe(200);
  expect(await ownedBy(i.organisationId)).toEqual([
    `${i.account}/app`,
    `${i.account}/lib`,
    `${i.account}/web`,
  ]);
  expect((await rows(added.id))[0]).toMatchObject({
    event: 'installation_repositories',
    action: 'added',
    installation_id: String(i.id),
    outcome: 'applied',
  });
  await deliver({
    event: 'installation_repositories',
    payload: repositoriesEvent(i.id, 'removed', [`${i.account}/app`]),
  });
  expect(await ownedBy(i.organisationId)).toEqual([`${i.account}/lib`, `${i.account}/web`]);
});

test('installation suspend, unsuspend and deleted follow GitHub for a linked installation', async () => {
  const i = await linkedInstallation(['app']);
  const suspendedAt = '2026-11-01T10:00:00Z';
  await deliver({
    event: 'installation',
    payload: { action: 'suspend', installation: { id: i.id, suspended_at: suspendedAt } },
  });
  const store = createGitHubInstallationStore(pool);
  expect((await store.find(i.id))?.suspendedAt?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
  await deliver({
    event: 'installation',
    payload: { action: 'unsuspend', installation: { id: i.id, suspended_at: null } },
  });
  expect((await store.find(i.id))?.suspendedAt).toBeNull();
  await deliver({ event: 'installation', payload: { action: 'deleted', installation: { id: i.id } } });
  expect(await store.find(i.id)).toBeNull();
  expect(await ownedBy(i.organisationId)).toEqual([]);
});

test('deliveries of an unlinked installation are stored and change nothing', async () => {
  const id = ++nextInstallation;
  const before = (await pool.query('SELECT count(*)::int AS n FROM repository_owners')).rows[0] as {
    n: number;
  };
  const d = await deliver({
    event: 'installation_repositories',
    payload: repositoriesEvent(id, 'added', ['stranger/app']),
  });
  expect(d.status).toBe(200);
  expect((await rows(d.id))[0]).toMatchObject({
    installation_id: String(id),
    outcome: 'installation not linked',
  });
  const after = (await pool.query('SELECT count(*)::int AS n FROM repository_owners')).rows[0] as {
    n: number;
  };
  expect(after.n).toBe(before.n);
  const deleted = await deliver({
    event: 'installation',
    payload: { action: 'deleted', installation: { id } },
  });
  expect((await rows(deleted.id))[0]?.outcome).toBe('installation not linked');
});

test('the webhook secret never appears in answers or the log', async () => {
  const answers = [
    await deliver({ event: 'ping', signature: 'sha256=00' }),
    await deliver({ event: 'ping', body: 'not json' }),
    await deliver({ event: 'ping' }),
  ];
  for (const a of answers) expect(a.text).not.toContain(SECRET);
  expect(log.text()).not.toContain(SECRET);
  expect(log.text()).toContain('github delivery');
});

test('a body past the API body limit is refused with 413 and not stored', async () => {
  const body = JSON.stringify({ zen: 'x'.repeat(BODY_LIMIT_BYTES) });
  const d = await deliver({ event: 'ping', body });
  expect(d.status).toBe(413);
  expect(await rows(d.id)).toEqual([]);
});

test('the route is in a valid OpenAPI document and needs no API key', async () => {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: object }>();
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  expect((await new Validator().validate(doc)).errors).toBeUndefined();
  expect(Object.keys(doc.paths)).toContain('/v1/github/webhooks');
});
