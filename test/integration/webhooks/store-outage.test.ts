/**
 * A webhook request the receiver accepted just as PostgreSQL went away, on the real stack: a worker in
 * this process running webhookDeliveryWorkflow (the shared bundle) with the real delivery activities,
 * the Temporal dev server, a local receiver, and a PostgreSQL cluster of this test's own that it
 * stops while the request is in flight and starts again.
 *
 * Shown: the attempt is recorded once PostgreSQL is back, the request is not sent a second time, and
 * the outage costs the delivery none of its retry budget. b471ab5 failed the attempt when it could not
 * record it, then spent the rest of the budget on the stopped database and ended the delivery `failed`.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { Webhook } from 'svix';
import { createEventActivities } from '../../../activities/events';
import { createPool } from '../../../stores/db';
import { createApiKeyStore } from '../../../stores/api-keys';
import { recordDeliveries } from '../../../webhooks/store/deliveries';
import { startDeliveries } from '../../../webhooks/dispatch';
import { createSubscriptionStore } from '../../../webhooks/store/subscriptions';
import { requireTestEnv } from '../../support/env';
import { startScratchCluster, type ScratchCluster } from '../events/scratch-cluster';
import { startReceiver, waitFor, type Receiver } from './receiver';

/** Three attempts half a second apart: b471ab5 used them up on an outage of a few seconds. */
const RETRY = {
  initialIntervalMs: 500,
  backoffCoefficient: 1,
  maximumIntervalMs: 500,
  maximumAttempts: 3,
  requestTimeoutMs: 5_000,
  storeMaximumIntervalMs: 1_000,
};
const OUTAGE_MS = 5_000;

let cluster: ScratchCluster;
let pool: Pool;
let receiver: Receiver;
let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let taskQueue: string;

beforeAll(async () => {
  try {
    // ERROR: every retry against the stopped database is an SDK warning.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Another test file in this jest worker installed it already.
  }
  cluster = await startScratchCluster('store-outage');
  pool = createPool(cluster.url, { max: 4 });
  receiver = await startReceiver();
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  nativeConnection = await NativeConnection.connect({ address });
  taskQueue = `store-outage-${randomUUID()}`;
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createEventActivities({ pool, client, taskQueue, allowPrivateWebhookUrls: true }),
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await Promise.all([receiver?.close(), connection?.close(), nativeConnection?.close()]);
  await pool?.end();
  await cluster?.close();
});

test('a request accepted as PostgreSQL stops is recorded when it is back and never sent again', async () => {
  const keys = createApiKeyStore(pool);
  const orgId = (await keys.authenticate((await keys.create('acme')).key))!.id;
  const { secret } = await createSubscriptionStore(pool).create(orgId, {
    url: receiver.url('/held'),
    description: 'held',
    eventTypes: [],
    enabled: true,
  });
  let release = () => {};
  receiver.script('/held', { hold: new Promise<void>((resolve) => (release = resolve)) });
  const [deliveryId] = await recordDeliveries(pool, [
    { organisationId: orgId, key: `outage/${randomUUID()}`, type: 'pull_request.merged', payload: { n: 1 } },
  ]);
  await startDeliveries({ pool, client, taskQueue, retry: RETRY }, [deliveryId!]);

  await waitFor('the request', () => (receiver.received('/held').length > 0 ? true : undefined));
  await cluster.stop();
  release();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  await cluster.start();

  const result = await client.workflow.getHandle(`webhook/${deliveryId}`).result();
  expect(result).toEqual({ kind: 'delivered', statusCode: 200, attempt: 1 });
  const requests = receiver.received('/held');
  expect(requests).toHaveLength(1);
  expect(new Webhook(secret).verify(requests[0]!.body, requests[0]!.headers)).toEqual({ n: 1 });
  const { rows } = await pool.query<{ status: string; attempts: number; codes: number[] }>(
    `SELECT d.status, d.attempts, array_agg(a.status_code) AS codes
       FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
      WHERE d.id = $1 GROUP BY d.id`,
    [deliveryId],
  );
  expect(rows).toEqual([{ status: 'succeeded', attempts: 1, codes: [200] }]);
}, 60_000);
