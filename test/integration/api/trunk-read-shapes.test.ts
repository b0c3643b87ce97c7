/**
 * Trunk's read shapes through the real app, the real queue workflow (Temporal) and the real event log
 * (PostgreSQL), checked with client-side zod schemas written from trunk-compat §1 (what strict clients
 * such as trunk-mq-mcp parse): getQueue's `requiredStatuses` is a list and it carries
 * `allowedBotSubmitters` / `batchingRules`; getMergeQueueTestingDetails without `testRunId` lists the
 * runs in progress; getSubmittedPullRequests reports unknown PRs in `notFound`;
 * listMergeQueueTestingResults pages the completed testing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';

/** A queue as strict Trunk clients parse it (trunk-compat §1.10, live fields included). */
const TrunkQueue = z.object({
  state: z.enum(['running', 'paused', 'draining', 'switching_modes']),
  branch: z.string(),
  concurrency: z.number(),
  mode: z.enum(['single', 'parallel']),
  requiredStatuses: z.array(z.string()),
  allowedBotSubmitters: z.array(z.unknown()),
  batchingRules: z.array(z.unknown()),
  enqueuedPullRequests: z.array(z.object({ prNumber: z.number(), state: z.string() })).optional(),
});
const TrunkEntry = z.object({
  id: z.string(),
  state: z.string(),
  prNumber: z.number(),
  prSha: z.string(),
  readiness: z.object({ doesBaseBranchMatch: z.boolean() }),
  isCurrentlySubmittedToQueue: z.boolean(),
});
const TrunkDetails = z.object({
  testRunId: z.string(),
  requiredStatuses: z.array(z.string()),
  testBranch: z.string(),
  testBranchSha: z.string(),
  status: z.literal('in_progress'),
  checkSuites: z.array(z.unknown()),
  statusChecks: z.array(z.unknown()),
  testedPullRequests: z.array(z.object({ prNumber: z.number(), prUrl: z.string(), title: z.string() })),
});
const TrunkResults = z.object({
  testingResults: z.array(
    z.object({
      prNumber: z.number(),
      testRunId: z.string(),
      cycleConclusion: z.string(),
      bisection: z.enum(['in_bisection', 'entered_bisection']).optional(),
    }),
  ),
  totalItems: z.number(),
});

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let key: string;
let otherKey: string;
let queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };

const post = (url: string, payload: object, token = key) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': token }, payload });

beforeAll(async () => {
  // Runs wait for the test to write $GATE/go, so one stays in progress as long as needed.
  h = await startQueueHarness({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: `shapes-${randomUUID()}`,
    callTimeoutMs: 30_000,
  });
  const { rows } = await h.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
    h.key.organisationId,
  ]);
  key = (await createApiKeyStore(h.pool).create(rows[0]!.slug)).key;
  otherKey = (await createApiKeyStore(h.pool).create(`other-${randomUUID().slice(0, 8)}`)).key;
  ({ app } = await buildTestApp(h.pool, {
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
  }));
  queue = { repo: h.key.repo, targetBranch: h.key.targetBranch };
  await h.createQueue({ concurrency: 1 });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await temporal?.close();
  await h?.close();
});

test('getQueue and updateQueue answer a list of required statuses and the live-only fields', async () => {
  const got = await post('getQueue', queue);
  expect(got.statusCode).toBe(200);
  expect(TrunkQueue.parse(got.json())).toMatchObject({
    requiredStatuses: [],
    allowedBotSubmitters: [],
    batchingRules: [],
  });
  for (const change of [{ requiredStatuses: [] }, { deleteRequiredStatuses: true }]) {
    const updated = await post('updateQueue', { ...queue, ...change });
    expect(updated.statusCode).toBe(200);
    expect(TrunkQueue.parse(updated.json()).requiredStatuses).toEqual([]);
  }
});

test('testing details without testRunId, the batch PR read and the completed testing', async () => {
  const shas = [h.openPr(1, { 'one.txt': '1\n' }), h.openPr(2, { 'two.txt': '2\n' })];
  for (const n of [1, 2])
    expect((await post('submitPullRequest', { ...queue, pr: { number: n } })).statusCode).toBe(200);

  const running = await h.waitFor('a run in progress', async () => {
    const res = await post('getMergeQueueTestingDetails', queue);
    const body = z.object({ testRuns: z.array(TrunkDetails) }).parse(res.json());
    return body.testRuns.length > 0 ? body.testRuns : undefined;
  });
  expect(running).toHaveLength(1);
  expect(running[0]!.testedPullRequests.map((p) => p.prNumber)).toEqual([1]);
  // The same run as its own read describes it.
  const byId = await post('getMergeQueueTestingDetails', { ...queue, testRunId: running[0]!.testRunId });
  expect(TrunkDetails.parse({ testRunId: running[0]!.testRunId, ...byId.json<object>() })).toEqual(
    running[0],
  );

  const batch = await post('getSubmittedPullRequests', {
    ...queue,
    prs: [{ number: 2 }, { number: 1 }, { number: 9 }, { number: 1 }],
    includeTimeline: true,
  });
  expect(batch.statusCode).toBe(200);
  const read = z
    .object({ pullRequests: z.array(TrunkEntry), notFound: z.array(z.object({ number: z.number() })) })
    .parse(batch.json());
  expect(read.pullRequests.map((p) => [p.prNumber, p.prSha])).toEqual([
    [2, shas[1]],
    [1, shas[0]],
  ]);
  expect(read.notFound).toEqual([{ number: 9 }]);

  fs.writeFileSync(path.join(h.gate, 'go'), '');
  const merged = [(await h.settled(1)).verifiedByTestRun, (await h.settled(2)).verifiedByTestRun];
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const results = await h.waitFor('both stretches in the event log', async () => {
    const body = TrunkResults.parse((await post('listMergeQueueTestingResults', { ...queue, since })).json());
    return body.totalItems >= 2 ? body : undefined;
  });
  expect(results.testingResults.map((r) => [r.prNumber, r.testRunId, r.cycleConclusion])).toEqual([
    [2, merged[1], 'passed'],
    [1, merged[0], 'passed'],
  ]);
  const second = TrunkResults.parse(
    (await post('listMergeQueueTestingResults', { ...queue, since, offset: 1, take: 1 })).json(),
  );
  expect(second).toEqual({ testingResults: [results.testingResults[1]], totalItems: 2 });
}, 120_000);

test('bounds and tenancy: one sentence naming the field, another organisation sees no queue', async () => {
  const old = new Date(Date.now() - 46 * 86_400_000).toISOString();
  const tooLong = await post('listMergeQueueTestingResults', { ...queue, since: old });
  expect([tooLong.statusCode, tooLong.body]).toEqual([
    400,
    "Field 'since' must be at most 45 days before 'until'.",
  ]);
  const many = await post('getSubmittedPullRequests', {
    ...queue,
    prs: Array.from({ length: 51 }, (_, i) => ({ number: i + 1 })),
  });
  expect(many.statusCode).toBe(400);
  expect(many.body).toMatch(/prs.*at most 50 pull requests/);
  const since = new Date().toISOString();
  for (const [url, body] of [
    ['listMergeQueueTestingResults', { ...queue, since }],
    ['getSubmittedPullRequests', { ...queue, prs: [{ number: 1 }] }],
    ['getMergeQueueTestingDetails', queue],
  ] as const) {
    const res = await post(url, body, otherKey);
    expect([url, res.statusCode]).toEqual([url, 404]);
  }
  const missing = await post('listMergeQueueTestingResults', { ...queue, targetBranch: 'nope', since });
  expect(missing.statusCode).toBe(404);
});
