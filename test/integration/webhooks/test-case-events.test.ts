/**
 * The flaky-test webhooks on the real stack: PostgreSQL, the Temporal dev server, an in-process worker
 * running webhookDeliveryWorkflow with the real delivery activities, the real app (uploads and
 * overrides through HTTP), the store's outbox and its dispatcher (flaky/events.ts), and a
 * real local HTTP receiver whose requests svix verifies.
 *
 * Shown: an upload that flips a test healthy → flaky, and one that flips another healthy → broken,
 * each deliver exactly one test_case.status_changed with the TestCase the API answers; a retried
 * identical upload delivers nothing new; an override change delivers
 * test_case.quarantining_setting_changed (the same override again nothing); the merge queue's judge
 * and the re-evaluation activity announce their changes too; when dispatching fails the upload still
 * answers, the event waits in the outbox and the next drain delivers it once; an organisation without
 * subscriptions keeps no outbox rows.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { Webhook } from 'svix';
import { createEventActivities } from '../../../activities/events';
import { createFlakyActivities } from '../../../activities/flaky';
import { createTestCaseEvents, type TestCaseEvents } from '../../../flaky/events';
import { createFlakyStore, type FlakyStore, type ReevaluationSummary } from '../../../flaky/service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { createMigratedDatabase } from '../../support/postgres';
import { junit } from '../flaky/harness';
import { startReceiver, waitFor, type Received, type Receiver } from './receiver';

const RETRY = {
  initialIntervalMs: 200,
  backoffCoefficient: 2,
  maximumIntervalMs: 1_000,
  maximumAttempts: 3,
  requestTimeoutMs: 5_000,
};
const PUBLIC_URL = 'http://127.0.0.1:8080';
const REPO = { host: 'github.com', owner: 'acme', name: 'shop' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let pool: Pool;
let app: FastifyInstance;
let key: string;
let otherKey: string;
let orgId: string;
let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let receiver: Receiver;
let taskQueue: string;
let events: TestCaseEvents;
let store: FlakyStore;
const clock = { now: new Date('2026-11-20T12:00:00.000Z') };
const now = () => clock.now;
const tick = (ms: number) => void (clock.now = new Date(clock.now.getTime() + ms));
const dispatchErrors: unknown[] = [];

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Another test file in this jest worker installed it already.
  }
  ({ pool } = await createMigratedDatabase('webhook_test_cases'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  otherKey = (await keys.create('globex')).key;
  orgId = (await keys.authenticate(key))!.id;
  receiver = await startReceiver();

  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  nativeConnection = await NativeConnection.connect({ address });
  taskQueue = `webhooks-test-cases-${randomUUID()}`;
  events = createTestCaseEvents({
    pool,
    client,
    taskQueue,
    publicUrl: PUBLIC_URL,
    retry: RETRY,
    now,
    onError: (err) => dispatchErrors.push(err),
  });
  store = createFlakyStore(pool, { now, events });
  ({ app } = await buildTestApp(pool, { flaky: { store, pageTokenSecret: TEST_PAGE_TOKEN_SECRET } }));

  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    // The run's one bundle (scripts/test.ts), not a bundling of the delivery workflow here.
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createEventActivities({ pool, allowPrivateWebhookUrls: true }),
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  await events.idle();
  worker.shutdown();
  await running;
  await Promise.all([app.close(), receiver.close(), connection.close(), nativeConnection.close()]);
  await pool.end();
});

const post = (target: FastifyInstance, url: string, body: object, token = key) =>
  target.inject({
    method: 'POST',
    url,
    headers: { 'x-api-token': token, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

function upload(
  uploadId: string,
  tests: Record<string, string>,
  meta: { sha: string; branch?: string; pr?: number; token?: string; target?: FastifyInstance },
) {
  return post(
    meta.target ?? app,
    '/v1/flaky-tests/upload',
    {
      org_url_slug: meta.token === otherKey ? 'globex' : 'acme',
      // Each organisation uploads for a repository of its own (ADR 0006).
      repo: meta.token === otherKey ? { ...REPO, owner: 'globex' } : REPO,
      upload_id: uploadId,
      commit_sha: meta.sha,
      branch: meta.branch ?? 'main',
      ...(meta.pr === undefined ? {} : { pr_number: meta.pr }),
      files: [{ name: 'junit.xml', content: junit(tests) }],
    },
    meta.token,
  );
}

async function subscribe(path: string, eventTypes: string[]) {
  const response = await post(app, '/v1/webhooks/subscriptions', { url: receiver.url(path), eventTypes });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string; secret: string }>();
}

async function testIdOf(name: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM test_cases WHERE name = $1`, [name]);
  return rows[0]!.id;
}

async function apiTestCase(id: string) {
  const response = await post(app, '/v1/flaky-tests/get-test-details', {
    org_url_slug: 'acme',
    repo: REPO,
    test_id: id,
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ test: Record<string, unknown> & { quarantined: boolean } }>().test;
}

type Payload = { type: string; test_case: { id: string } & Record<string, unknown> } & Record<
  string,
  unknown
>;

/** The verified payloads a path received about one test. */
function receivedFor(
  path: string,
  secret: string,
  testId: string,
): { request: Received; payload: Payload }[] {
  const verifier = new Webhook(secret);
  return receiver
    .received(path)
    .map((request) => ({ request, payload: verifier.verify(request.body, request.headers) as Payload }))
    .filter(({ payload }) => payload.test_case.id === testId);
}

async function outboxRows(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM test_case_event_outbox`);
  return rows[0]!.n;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

let status: { id: string; secret: string };

test('an upload that makes a test flaky delivers one test_case.status_changed; the retried upload nothing', async () => {
  status = await subscribe('/status', ['test_case.status_changed']);
  const send = (id: string, outcome: string, sha: string) =>
    upload(id, { checkout: outcome }, { sha, branch: 'feature/x', pr: 7 });
  expect((await send('f-1', 'P', 'aaa1111')).json()).toMatchObject({ created: true, status_changes: 0 });
  tick(HOUR);
  expect((await send('f-2', 'F', 'bbb2222')).json()).toMatchObject({ created: true, status_changes: 0 });
  tick(HOUR);
  const flip = await send('f-3', 'P', 'bbb2222');
  expect(flip.statusCode).toBe(200);
  expect(flip.json()).toMatchObject({ created: true, status_changes: 1 });
  const id = await testIdOf('checkout');

  const [got] = await waitFor('the status event', () => {
    const list = receivedFor('/status', status.secret, id);
    return list.length > 0 ? list : undefined;
  });
  const test = await apiTestCase(id);
  expect(got!.payload).toEqual({
    type: 'test_case.status_changed',
    test_case: { ...test, quarantine: test.quarantined },
    status_change: {
      previous_status: 'healthy',
      current_status: {
        value: 'flaky',
        reason: 'mixed_outcomes_same_commit:sha=bbb2222',
        timestamp: clock.now.toISOString(),
      },
    },
  });
  expect(test).toMatchObject({
    id,
    status: { value: 'flaky' },
    html_url: `${PUBLIC_URL}/ui/flaky/tests/${id}`,
  });

  // The same upload again (a CI retry) changes nothing and announces nothing.
  expect((await send('f-3', 'P', 'bbb2222')).json()).toMatchObject({ created: false, status_changes: 0 });
  await events.idle();
  await settle();
  expect(receivedFor('/status', status.secret, id)).toHaveLength(1);
  expect(await outboxRows()).toBe(0);
  const deliveries = await app.inject({
    method: 'GET',
    url: `/v1/webhooks/subscriptions/${status.id}/deliveries`,
    headers: { 'x-api-token': key },
  });
  expect(deliveries.json().deliveries).toMatchObject([
    { eventType: 'test_case.status_changed', status: 'succeeded', attemptCount: 1 },
  ]);
});

test('consecutive failing commits on main make a test broken: one event, healthy → broken', async () => {
  for (let i = 1; i <= 3; i += 1) {
    tick(HOUR);
    const response = await upload(`b-${i}`, { total: 'F' }, { sha: `ddd000${i}` });
    expect(response.json()).toMatchObject({ status_changes: i === 3 ? 1 : 0 });
  }
  const id = await testIdOf('total');
  const [got] = await waitFor('the broken event', () => {
    const list = receivedFor('/status', status.secret, id);
    return list.length > 0 ? list : undefined;
  });
  expect(got!.payload.status_change).toEqual({
    previous_status: 'healthy',
    current_status: {
      value: 'broken',
      reason: 'consecutive_failing_commits:3',
      timestamp: clock.now.toISOString(),
    },
  });
  expect(got!.payload.test_case).toMatchObject({ id, name: 'total', status: { value: 'broken' } });
  await settle();
  expect(receivedFor('/status', status.secret, id)).toHaveLength(1);
});

test('an override change delivers test_case.quarantining_setting_changed; the same override again nothing', async () => {
  const sub = await subscribe('/override', ['test_case.quarantining_setting_changed']);
  const settings = await post(app, '/v1/flaky-tests/update-repository-settings', {
    org_url_slug: 'acme',
    repo: REPO,
    quarantine: { enabled: true },
  });
  expect(settings.statusCode).toBe(200);
  const id = await testIdOf('checkout');
  const override = (value: string) =>
    post(app, '/v1/flaky-tests/set-quarantine-override', {
      org_url_slug: 'acme',
      repo: REPO,
      test_id: id,
      override: value,
      reason: 'tracked in KAN-1',
      actor: 'Ada Lovelace <ada@example.com>',
    });
  tick(60_000);
  expect((await override('ALWAYS_QUARANTINE')).statusCode).toBe(200);
  const setAt = clock.now.toISOString();
  const [got] = await waitFor('the override event', () => {
    const list = receivedFor('/override', sub.secret, id);
    return list.length > 0 ? list : undefined;
  });
  const test = await apiTestCase(id);
  expect(test.quarantined).toBe(true);
  expect(got!.payload).toEqual({
    type: 'test_case.quarantining_setting_changed',
    test_case: { ...test, quarantine: true },
    quarantine_setting_changed: {
      actor: { full_name: 'Ada Lovelace', email: 'ada@example.com' },
      reason: 'tracked in KAN-1',
      timestamp: setAt,
      previous_quarantining_setting: 'UNSPECIFIED',
      updated_quarantining_setting: 'ALWAYS_QUARANTINE',
    },
  });

  // The same value again (a retried request) is recorded but announces nothing; a new value does.
  expect((await override('ALWAYS_QUARANTINE')).statusCode).toBe(200);
  await events.idle();
  await settle();
  expect(receivedFor('/override', sub.secret, id)).toHaveLength(1);
  tick(60_000);
  expect((await override('NEVER_QUARANTINE')).statusCode).toBe(200);
  const both = await waitFor('the second override event', () => {
    const list = receivedFor('/override', sub.secret, id);
    return list.length > 1 ? list : undefined;
  });
  expect(both.map((r) => r.payload.quarantine_setting_changed)).toMatchObject([
    { updated_quarantining_setting: 'ALWAYS_QUARANTINE' },
    { previous_quarantining_setting: 'ALWAYS_QUARANTINE', updated_quarantining_setting: 'NEVER_QUARANTINE' },
  ]);
  // A status subscriber hears nothing of overrides.
  expect(receivedFor('/status', status.secret, id)).toHaveLength(1);
});

test('the merge queue’s judge and the re-evaluation activity announce their changes too', async () => {
  tick(HOUR);
  expect((await upload('j-0', { 'pays invoice': 'P' }, { sha: 'eee1111' })).statusCode).toBe(200);
  tick(HOUR);
  const judge = {
    organisationId: orgId,
    repo: REPO,
    runId: `run-${randomUUID()}`,
    headSha: 'eee1111',
    branchName: 'railyard-merge/pr-9/run',
    junitFiles: [{ path: 'reports/junit.xml', xml: junit({ 'pays invoice': 'F' }) }],
  };
  expect(await store.judgeJunitFiles(judge)).toMatchObject({ uploadCreated: true });
  expect(await store.judgeJunitFiles(judge)).toMatchObject({ uploadCreated: false });
  const id = await testIdOf('pays invoice');
  const [judged] = await waitFor('the judge’s event', () => {
    const list = receivedFor('/status', status.secret, id);
    return list.length > 0 ? list : undefined;
  });
  expect(judged!.payload.status_change).toMatchObject({
    previous_status: 'healthy',
    current_status: { value: 'flaky', reason: 'mixed_outcomes_same_commit:sha=eee1111' },
  });

  // Ten passes, then eight days: the hourly re-evaluation heals it by time alone.
  for (let i = 0; i < 10; i += 1) {
    tick(HOUR);
    await upload(`j-heal-${i}`, { 'pays invoice': 'P' }, { sha: `fff000${i}` });
  }
  tick(8 * DAY);
  const activities = createFlakyActivities({ pool, now, events });
  const summary = await new MockActivityEnvironment().run<
    [],
    ReevaluationSummary,
    typeof activities.reevaluateFlakyTests
  >(activities.reevaluateFlakyTests);
  expect(summary.changed).toBeGreaterThanOrEqual(1);
  const both = await waitFor('the re-evaluation’s event', () => {
    const list = receivedFor('/status', status.secret, id);
    return list.length > 1 ? list : undefined;
  });
  expect(both[1]!.payload.status_change).toMatchObject({
    previous_status: 'flaky',
    current_status: { value: 'healthy', reason: 'recovered' },
  });
  await settle();
  expect(receivedFor('/status', status.secret, id)).toHaveLength(2);
});

test('a failing dispatch fails no upload: the event waits in the outbox and the next drain sends it once', async () => {
  const broken = {
    workflow: { start: () => Promise.reject(new Error('Temporal is unreachable')) },
  } as unknown as Client;
  const errors: unknown[] = [];
  const failing = createTestCaseEvents({
    pool,
    client: broken,
    taskQueue,
    publicUrl: PUBLIC_URL,
    now,
    onError: (err) => errors.push(err),
  });
  const failingStore = createFlakyStore(pool, { now, events: failing });
  const { app: other } = await buildTestApp(pool, {
    flaky: { store: failingStore, pageTokenSecret: TEST_PAGE_TOKEN_SECRET },
  });
  try {
    tick(HOUR);
    await upload('d-1', { refunds: 'F' }, { sha: 'ggg1111', target: other });
    tick(HOUR);
    const flip = await upload('d-2', { refunds: 'P' }, { sha: 'ggg1111', target: other });
    expect(flip.statusCode).toBe(200);
    expect(flip.json()).toMatchObject({ created: true, status_changes: 1 });
    await failing.idle();
    expect(errors).toHaveLength(1);
    expect(await outboxRows()).toBe(1);

    // The next drain (the hourly re-evaluation runs one) delivers it, once.
    expect(await events.drain({ minAgeMs: 0 })).toBe(1);
    expect(await outboxRows()).toBe(0);
    const id = await testIdOf('refunds');
    await waitFor('the drained event', () =>
      receivedFor('/status', status.secret, id).length > 0 ? true : undefined,
    );
    expect(await events.drain({ minAgeMs: 0 })).toBe(0);
    await settle();
    expect(receivedFor('/status', status.secret, id)).toHaveLength(1);
  } finally {
    await other.close();
  }
});

test('an organisation without subscriptions keeps no outbox rows', async () => {
  tick(HOUR);
  await upload('o-1', { ships: 'F' }, { sha: 'hhh1111', token: otherKey });
  tick(HOUR);
  const flip = await upload('o-2', { ships: 'P' }, { sha: 'hhh1111', token: otherKey });
  expect(flip.json()).toMatchObject({ status_changes: 1 });
  expect(await outboxRows()).toBe(0);
  expect(dispatchErrors).toEqual([]);
});
