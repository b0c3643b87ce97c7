/**
 * Durable webhook delivery on the real stack: PostgreSQL, the Temporal dev server, an in-process
 * worker running webhookDeliveryWorkflow (bundled here: it is not in the shared bundle yet) with the
 * real activities, and real local HTTP receivers.
 *
 * Shown: signatures verify with svix's Webhook.verify; a 500 then 200 receiver is retried with the
 * same svix-id and both attempts are readable through the API; a receiver that always fails ends
 * `failed` after the bounded attempts; a held receiver does not hold up appendTransitions; a repeated
 * batch sends nothing twice; filters and disabled subscriptions; the flaky-test events.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { Webhook } from 'svix';
import { createEventActivities } from '../../../activities/events';
import { createApiKeyStore } from '../../../stores/api-keys';
import { publishTestCaseEvent } from '../../../webhooks';
import { recordDeliveries } from '../../../webhooks/store/deliveries';
import { webhookDeliveryWorkflowId } from '../../../contract';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { recordHistory } from '../../support/histories';
import { createMigratedDatabase } from '../../support/postgres';
import { submission } from '../../unit/events/fixtures';
import { startReceiver, waitFor, type Receiver } from './receiver';

const RETRY = {
  initialIntervalMs: 200,
  backoffCoefficient: 2,
  maximumIntervalMs: 1_000,
  maximumAttempts: 3,
  requestTimeoutMs: 5_000,
};

let pool: Pool;
let app: FastifyInstance;
let key: string;
let orgId: string;
let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let receiver: Receiver;
let taskQueue: string;
let activities: ReturnType<typeof createEventActivities>;

beforeAll(async () => {
  try {
    // ERROR: the failing receivers make every retried attempt a WARN line.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Another test file in this jest worker installed it already.
  }
  ({ pool } = await createMigratedDatabase('webhook_delivery'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  orgId = (await keys.authenticate(key))!.id;
  ({ app } = await buildTestApp(pool));
  receiver = await startReceiver();

  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  nativeConnection = await NativeConnection.connect({ address });
  taskQueue = `webhooks-${randomUUID()}`;
  activities = createEventActivities({
    pool,
    client,
    taskQueue,
    allowPrivateWebhookUrls: true,
    publicUrl: 'http://railyard.test',
    webhookRetry: RETRY,
  });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    // The run's one bundle (scripts/test.ts), not a bundling of the delivery workflow here.
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities,
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  worker.shutdown();
  await running;
  await Promise.all([app.close(), receiver.close(), connection.close(), nativeConnection.close()]);
  await pool.end();
});

const api = (method: 'GET' | 'POST', url: string, body?: object) =>
  app.inject({
    method,
    url: `/v1/webhooks${url}`,
    headers: { 'x-api-token': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });

async function subscribe(path: string, eventTypes: string[] = [], enabled = true) {
  const response = await api('POST', '/subscriptions', { url: receiver.url(path), eventTypes, enabled });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string; secret: string }>();
}

let prNumber = 100;
/** A PR submitted and merged in one drain: submitted, queued, testing, merged. */
function mergedPr() {
  const n = ++prNumber;
  const t = Date.now();
  return submission({ organisationId: orgId, prNumber: n, submissionId: randomUUID() }, [
    { to: 'not_ready', at: t },
    { to: 'pending', at: t + 1 },
    { to: 'testing', at: t + 2, testRunId: `run-${n}` },
    { to: 'tests_passed', at: t + 3, testRunId: `run-${n}` },
    { to: 'merged', at: t + 4, testRunId: `run-${n}` },
  ]);
}

async function deliveriesOf(subscriptionId: string) {
  const response = await api('GET', `/subscriptions/${subscriptionId}/deliveries`);
  expect(response.statusCode).toBe(200);
  return response.json<{
    deliveries: { id: string; status: string; attemptCount: number; eventType: string }[];
  }>().deliveries;
}

test('a real receiver gets signed events that svix verifies; the delivery is recorded', async () => {
  const sub = await subscribe('/ok', ['pull_request.submitted', 'pull_request.merged']);
  const result = await activities.appendTransitions({ events: mergedPr() });
  expect(result).toMatchObject({ appended: 5, deliveries: 2 });

  const got = await waitFor('two requests', () =>
    receiver.received('/ok').length >= 2 ? receiver.received('/ok') : undefined,
  );
  const verifier = new Webhook(sub.secret);
  const payloads = got.map((r) => verifier.verify(r.body, r.headers) as { type: string });
  expect(payloads.map((p) => p.type).sort()).toEqual(['pull_request.merged', 'pull_request.submitted']);
  expect(got[0]!.headers['content-type']).toBe('application/json');
  expect(got[0]!.headers['svix-id']).toMatch(/^msg_[0-9a-f]{32}$/);
  const merged = payloads.find((p) => p.type === 'pull_request.merged');
  expect(merged).toMatchObject({
    action: 'merged',
    status: 'merged',
    pr_number: prNumber,
    repository: { host: 'github.com', owner: 'acme', name: 'app' },
    merged_reason: 'MERGE_GRAPH_MERGE',
    http_details_url: `http://railyard.test/merge/github.com/acme/app/main/${prNumber}`,
  });

  const deliveries = await waitFor('both succeeded', async () => {
    const list = await deliveriesOf(sub.id);
    return list.length === 2 && list.every((d) => d.status === 'succeeded') ? list : undefined;
  });
  expect(deliveries.every((d) => d.attemptCount === 1)).toBe(true);
});

test('500 then 200: retried with backoff, same svix-id, every attempt readable through the API', async () => {
  receiver.script('/flaky', { statuses: [500, 200] });
  const sub = await subscribe('/flaky', ['pull_request.merged']);
  await activities.appendTransitions({ events: mergedPr() });

  const [delivery] = await waitFor('the retry to succeed', async () => {
    const list = await deliveriesOf(sub.id);
    return list[0]?.status === 'succeeded' ? list : undefined;
  });
  expect(delivery).toMatchObject({ eventType: 'pull_request.merged', attemptCount: 2 });
  const requests = receiver.received('/flaky');
  expect(requests).toHaveLength(2);
  expect(requests[0]!.headers['svix-id']).toBe(delivery!.id);
  expect(requests[1]!.headers['svix-id']).toBe(delivery!.id);
  expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(RETRY.initialIntervalMs - 50);
  for (const r of requests) expect(() => new Webhook(sub.secret).verify(r.body, r.headers)).not.toThrow();

  const detail = await api('GET', `/deliveries/${delivery!.id}`);
  expect(detail.statusCode).toBe(200);
  expect(detail.json()).toMatchObject({
    id: delivery!.id,
    status: 'succeeded',
    payload: { type: 'pull_request.merged', pr_number: prNumber },
    attempts: [
      { attempt: 1, statusCode: 500, error: 'The receiver answered HTTP 500.', responseBody: 'nope 500' },
      { attempt: 2, statusCode: 200, error: null, responseBody: 'ok' },
    ],
  });
  expect(detail.json().attempts[0].durationMs).toEqual(expect.any(Number));
  const workflowId = webhookDeliveryWorkflowId(delivery!.id);
  await client.workflow.getHandle(workflowId).result();
  recordHistory('webhook-delivery', workflowId);
});

test('a receiver that always fails ends failed after the bounded attempts, each recorded', async () => {
  receiver.script('/down', { statuses: [503] });
  const sub = await subscribe('/down', ['pull_request.merged']);
  await activities.appendTransitions({ events: mergedPr() });
  const [delivery] = await waitFor('the delivery to fail', async () => {
    const list = await deliveriesOf(sub.id);
    return list[0]?.status === 'failed' ? list : undefined;
  });
  expect(delivery!.attemptCount).toBe(RETRY.maximumAttempts);
  const detail = (await api('GET', `/deliveries/${delivery!.id}`)).json<{
    attempts: { statusCode: number }[];
    finishedAt: string | null;
  }>();
  expect(detail.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503]);
  expect(detail.finishedAt).toEqual(expect.any(String));
  const failed = await api('GET', `/subscriptions/${sub.id}/deliveries?status=failed`);
  expect(failed.json().deliveries).toHaveLength(1);
});

test('a held receiver does not hold up appendTransitions', async () => {
  // The receiver holds its answer until released. Were appendTransitions waiting on it, it could only
  // return once the fallback below released it (so `released` tells, without a wall-clock bound).
  let released = false;
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = () => {
      released = true;
      resolve();
    };
  });
  const fallback = setTimeout(() => release(), 20_000);
  try {
    receiver.script('/slow', { hold });
    const sub = await subscribe('/slow', ['pull_request.merged']);
    await activities.appendTransitions({ events: mergedPr() });
    expect(released).toBe(false);
    await waitFor('the receiver to be called', () =>
      receiver.received('/slow').length > 0 ? true : undefined,
    );
    // The receiver is still holding the first request; the next drain goes through all the same.
    await activities.appendTransitions({ events: mergedPr() });
    expect(released).toBe(false);
    expect((await deliveriesOf(sub.id)).every((d) => d.status === 'pending')).toBe(true);
    release();
    await waitFor('both delivered', async () => {
      const list = await deliveriesOf(sub.id);
      return list.length === 2 && list.every((d) => d.status === 'succeeded') ? true : undefined;
    });
  } finally {
    clearTimeout(fallback);
    release();
  }
});

test('the same batch appended twice sends each event once; filters and disabled subscriptions hold', async () => {
  const all = await subscribe('/all');
  const off = await subscribe('/off', [], false);
  const events = mergedPr();
  await activities.appendTransitions({ events });
  const again = await activities.appendTransitions({ events });
  expect(again.appended).toBe(0);
  await waitFor('four events', () => (receiver.received('/all').length >= 4 ? true : undefined));
  await new Promise((r) => setTimeout(r, 500));
  const ids = receiver.received('/all').map((r) => r.headers['svix-id']);
  expect(ids).toHaveLength(4);
  expect(new Set(ids).size).toBe(4);
  const types = receiver.received('/all').map((r) => (JSON.parse(r.body) as { type: string }).type);
  expect(types.sort()).toEqual([
    'pull_request.merged',
    'pull_request.queued',
    'pull_request.submitted',
    'pull_request.testing',
  ]);
  expect(receiver.received('/off')).toEqual([]);
  expect(await deliveriesOf(off.id)).toEqual([]);
  expect((await deliveriesOf(all.id)).length).toBe(4);
});

test('flaky-test events: publishTestCaseEvent delivers test_case.status_changed once per event id', async () => {
  const sub = await subscribe('/flaky-tests', ['test_case.status_changed']);
  const event = {
    type: 'test_case.status_changed' as const,
    organisationId: orgId,
    eventId: '2026-03-01T12:00:00.000Z',
    testCase: { id: randomUUID(), name: 'adds numbers', quarantined: true, status: { value: 'flaky' } },
    statusChange: {
      previousStatus: 'healthy' as const,
      currentStatus: {
        value: 'flaky' as const,
        reason: 'same_commit:mixed',
        timestamp: '2026-03-01T12:00:00.000Z',
      },
    },
  };
  const deps = { pool, client, taskQueue, retry: RETRY };
  // This subscription and the catch-all one of the test before.
  expect(await publishTestCaseEvent(deps, event)).toBe(2);
  await publishTestCaseEvent(deps, event);
  const [request] = await waitFor('the event', () => {
    const got = receiver.received('/flaky-tests');
    return got.length > 0 ? got : undefined;
  });
  expect(new Webhook(sub.secret).verify(request!.body, request!.headers)).toEqual({
    type: 'test_case.status_changed',
    test_case: { ...event.testCase, quarantine: true },
    status_change: {
      previous_status: 'healthy',
      current_status: { value: 'flaky', reason: 'same_commit:mixed', timestamp: '2026-03-01T12:00:00.000Z' },
    },
  });
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received('/flaky-tests')).toHaveLength(1);
});

test('attemptWebhook sends nothing for a disabled subscription (cancelled) or a finished delivery', async () => {
  const sub = await subscribe('/disabled', ['pull_request.merged']);
  const event = {
    organisationId: orgId,
    key: `manual/${randomUUID()}`,
    type: 'pull_request.merged' as const,
    payload: { type: 'pull_request.merged' },
  };
  const recorded = await recordDeliveries(pool, [event]);
  // Recording again is the same deliveries (this subscription's and the catch-all one's).
  expect(await recordDeliveries(pool, [event])).toEqual(recorded);
  const id = (await deliveriesOf(sub.id))[0]!.id;
  expect(recorded).toContain(id);
  const patched = await app.inject({
    method: 'PATCH',
    url: `/v1/webhooks/subscriptions/${sub.id}`,
    headers: { 'x-api-token': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ enabled: false }),
  });
  expect(patched.statusCode).toBe(200);
  const input = { deliveryId: id, requestTimeoutMs: 1_000 };
  expect(await activities.attemptWebhook(input)).toEqual({ kind: 'skipped', why: 'disabled' });
  expect(await activities.attemptWebhook(input)).toEqual({ kind: 'skipped', why: 'finished' });
  expect(await activities.attemptWebhook({ ...input, deliveryId: 'msg_missing' })).toEqual({
    kind: 'skipped',
    why: 'gone',
  });
  expect((await deliveriesOf(sub.id))[0]).toMatchObject({ status: 'cancelled', attemptCount: 0 });
  expect(receiver.received('/disabled')).toEqual([]);
});
