/**
 * railyard's per-queue `testNetwork` setting (issue 17) through the real app, the real queue workflow
 * (Temporal) and real PostgreSQL: createQueue and updateQueue take it, getQueue answers it (true for a
 * queue that never set it), a request without it keeps it (Terraform, which does not know it, sees no
 * drift), a wrong type is refused with one sentence naming the field, and each test run started after
 * a change carries it to the test-run workflow as `network`, read from each run's own start.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { defaultPayloadConverter } from '@temporalio/common';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import type { QueueWorkflowInput, TestRunWorkflowInput } from '../../../contract';
import { queueWorkflowId } from '../../../contract';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let key: string;
let queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };

const post = (url: string, payload: object) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': key }, payload });

const testNetworkOf = async (body: object) => {
  const res = await post('getQueue', body);
  expect(res.statusCode).toBe(200);
  return res.json<{ testNetwork: unknown }>().testNetwork;
};

/**
 * The `network` every test run of the queue received, oldest first, from the runs' own start events.
 * The runs are found in the queue's history: started by its buildTestRun activity (whose arguments
 * name the run's workflow), or as child workflows where the queue has no starter. A run not started
 * yet is left out (the caller waits for the count).
 */
async function childNetworks(): Promise<(boolean | undefined)[]> {
  const history = await h.client.workflow.getHandle(h.workflowId).fetchHistory();
  const runIds = (history.events ?? []).flatMap((e) => {
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowId) return [child.workflowId];
    const scheduled = e.activityTaskScheduledEventAttributes;
    const payload =
      scheduled?.activityType?.name === 'buildTestRun' ? scheduled.input?.payloads?.[0] : undefined;
    const started = payload
      ? defaultPayloadConverter.fromPayload<{ testRun?: { workflowId: string } }>(payload).testRun
      : undefined;
    return started ? [started.workflowId] : [];
  });
  const networks: (boolean | undefined)[] = [];
  for (const id of runIds) {
    const run = await h.client.workflow
      .getHandle(id)
      .fetchHistory()
      .catch(() => null);
    const input = run?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!input) break;
    networks.push(defaultPayloadConverter.fromPayload<TestRunWorkflowInput>(input).network);
  }
  return networks;
}

beforeAll(async () => {
  h = await startQueueHarness();
  await h.createQueue({ concurrency: 1 });
  // The API starts queues on the harness worker's task queue, so a queue it creates runs for real.
  const { taskQueue } = await h.client.workflow.getHandle(h.workflowId).describe();
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue,
    callTimeoutMs: 30_000,
  });
  const { rows } = await h.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
    h.key.organisationId,
  ]);
  key = (await createApiKeyStore(h.pool).create(rows[0]!.slug)).key;
  ({ app } = await buildTestApp(h.pool, {
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
  }));
  queue = { repo: h.key.repo, targetBranch: h.key.targetBranch };
}, 60_000);
afterAll(async () => {
  await app?.close();
  await temporal?.close();
  await h?.close();
});

test('on by default; updateQueue turns it off, a request without it keeps it, a wrong type is refused', async () => {
  expect(await testNetworkOf(queue)).toBe(true);

  const off = await post('updateQueue', { ...queue, testNetwork: false });
  expect(off.statusCode).toBe(200);
  expect(off.json()).toMatchObject({ testNetwork: false });
  // What Terraform's provider sends (it does not know the field): the setting stays.
  const terraform = await post('updateQueue', { ...queue, batch: false, enqueueingLabel: 'merge-me' });
  expect(terraform.json()).toMatchObject({ testNetwork: false, enqueueingLabel: 'merge-me' });

  for (const wrong of ['true', 1, null, { on: true }]) {
    const res = await post('updateQueue', { ...queue, testNetwork: wrong });
    expect([res.statusCode, res.body]).toEqual([400, "Field 'testNetwork' must be a boolean."]);
  }
  expect(await testNetworkOf(queue)).toBe(false);
});

test("each test run carries the queue's setting as it was when the run started", async () => {
  // What the executor is told, not how the run ends (the executor's tests cover that): with
  // concurrency 2, PR 2's run starts on top of PR 1's without waiting for it to end.
  const started = (n: number) =>
    h.waitFor(`${n} test runs started`, async () => {
      const networks = await childNetworks();
      return networks.length >= n ? networks : undefined;
    });
  const off = await post('updateQueue', { ...queue, testNetwork: false, concurrency: 2 });
  expect(off.statusCode).toBe(200);
  h.openPr(1, { 'one.txt': '1\n' });
  expect((await post('submitPullRequest', { ...queue, pr: { number: 1 } })).statusCode).toBe(200);
  expect(await started(1)).toEqual([false]);

  expect((await post('updateQueue', { ...queue, testNetwork: true })).statusCode).toBe(200);
  h.openPr(2, { 'two.txt': '2\n' });
  expect((await post('submitPullRequest', { ...queue, pr: { number: 2 } })).statusCode).toBe(200);
  // A third start (PR 2 again, had PR 1's run failed under it) would be after the change too.
  expect((await started(2)).slice(0, 2)).toEqual([false, true]);
  for (const n of [2, 1]) await post('cancelPullRequest', { ...queue, pr: { number: n } });
}, 60_000);

test('createQueue takes it, so a queue can be offline from its first run; a wrong type is refused', async () => {
  const offline = { ...queue, targetBranch: `offline-${randomUUID().slice(0, 8)}` };
  h.fx.pushBranch(offline.targetBranch, h.fx.tip('main'));
  const refused = await post('createQueue', { ...offline, testNetwork: 'no' });
  expect([refused.statusCode, refused.body]).toEqual([400, "Field 'testNetwork' must be a boolean."]);
  expect((await post('getQueue', offline)).statusCode).toBe(404);

  expect((await post('createQueue', { ...offline, testNetwork: false })).statusCode).toBe(200);
  expect(await testNetworkOf(offline)).toBe(false);
  const handle = h.client.workflow.getHandle(
    queueWorkflowId({ organisationId: h.key.organisationId, ...offline }),
  );
  const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = defaultPayloadConverter.fromPayload<QueueWorkflowInput>(started!.input!.payloads![0]!);
  expect(input.runner).toEqual({ testNetwork: false });
  expect((await post('deleteQueue', offline)).statusCode).toBe(200);
}, 60_000);

test('the OpenAPI document describes it on createQueue, updateQueue and their answers', async () => {
  type Props = { properties: Record<string, { type?: string; description?: string }> };
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
    paths: Record<
      string,
      {
        post: {
          requestBody: { content: Record<string, { schema: Props }> };
          responses: Record<string, { content?: Record<string, { schema: Props }> }>;
        };
      }
    >;
  }>();
  const described = (p?: Props) => p?.properties.testNetwork;
  const route = (path: string) => doc.paths[path]!.post;
  for (const schema of [
    route('/v1/createQueue').requestBody.content['application/json']!.schema,
    route('/v1/updateQueue').requestBody.content['application/json']!.schema,
    route('/v1/updateQueue').responses['200']!.content!['application/json']!.schema,
    route('/v1/getQueue').responses['200']!.content!['application/json']!.schema,
  ])
    expect(described(schema)).toMatchObject({
      type: 'boolean',
      description: expect.stringContaining('only loopback'),
    });
});
