/**
 * Records that explain themselves, through the real app, the real queue and PR workflows (Temporal),
 * the real worker running the test command, and PostgreSQL (event log, run logs): a failed command is
 * TEST_RUN_COMMAND_FAILED with its exit code and a link to its log (readable by the organisation only);
 * a conflict names the PR it conflicted with and the file, and is not `mergeable`; a cancellation
 * names the API key; finished PRs keep their head sha; includeTimeline answers the transitions newest
 * first, includeEstimatedTimeToMerge an estimate while the PR is queued.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createTestDurations } from '../../../events/store/test-durations';
import { createRunLogStore } from '../../../test-runs/store/run-logs';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import { SubmittedPullRequest, PullRequestPage } from '../../../api/schemas/merge-queue';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let key: string;
let otherKey: string;
let queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };

const post = (url: string, payload: object, token = key) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': token }, payload });
const record = async (n: number, extra: object = {}) => {
  const res = await post('getSubmittedPullRequest', { ...queue, pr: { number: n }, ...extra });
  expect(res.statusCode).toBe(200);
  return SubmittedPullRequest.strict().parse(res.json());
};

// A PR adding BROKEN fails the command with exit code 3 after printing why; one adding HOLD is tested
// until the test writes $GATE/go.
const COMMAND = [
  'if [ -e HOLD ]; then while [ ! -e $GATE/go ]; do sleep 0.1; done; fi',
  'if [ -e BROKEN ]; then echo "calc.adds: expected 3, got -1"; exit 3; fi',
  'sleep 0.2',
].join('; ');

beforeAll(async () => {
  h = await startQueueHarness({ command: COMMAND });
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: `records-${randomUUID()}`,
    callTimeoutMs: 30_000,
  });
  const { rows } = await h.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
    h.key.organisationId,
  ]);
  key = (await createApiKeyStore(h.pool).create(rows[0]!.slug, 'release bot')).key;
  otherKey = (await createApiKeyStore(h.pool).create(`other-${randomUUID().slice(0, 8)}`)).key;
  const service = createMergeQueueService(createQueueClient(temporal), {
    publicUrl: 'http://127.0.0.1:8080',
    testDurations: createTestDurations(h.pool),
    runLogs: createRunLogStore(h.pool),
  });
  ({ app } = await buildTestApp(h.pool, { mergeQueue: service }));
  queue = { repo: h.key.repo, targetBranch: h.key.targetBranch };
  await h.createQueue({ concurrency: 2 });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await temporal?.close();
  await h?.close();
});

test('failed command, conflict, cancellation: each record says why in one sentence', async () => {
  const shas = {
    1: h.openPr(1, { 'one.txt': '1\n' }),
    2: h.openPr(2, { BROKEN: 'yes\n' }),
    3: h.openPr(3, { 'same.txt': 'three\n' }),
    4: h.openPr(4, { 'same.txt': 'four\n' }),
  };
  for (const n of [1, 2, 3, 4])
    expect((await post('submitPullRequest', { ...queue, pr: { number: n } })).statusCode).toBe(200);
  for (const n of [1, 2, 3, 4]) await h.settled(n, 90_000);

  const broken = await record(2);
  expect(broken).toMatchObject({
    state: 'failed',
    prSha: shas[2],
    reason: 'TEST_RUN_COMMAND_FAILED',
    reasonDetail: { kind: 'command_failed', exitCode: 3 },
  });
  expect(broken.reasonText).toBe("Failed: the queue's test command failed on the test branch (exit code 3).");
  expect(broken.decidedByTestRun).toEqual(expect.any(String));
  const run = broken.testRuns.find((r) => r.testRunId === broken.decidedByTestRun);
  expect(run?.logUrl).toBe(`http://127.0.0.1:8080/v1/testRuns/${broken.decidedByTestRun}/log`);

  // The log, for the owning organisation only; another organisation's key gets the 404 of no log.
  const logPath = new URL(run!.logUrl!).pathname;
  const log = await app.inject({ method: 'GET', url: logPath, headers: { 'x-api-token': key } });
  expect(log.statusCode).toBe(200);
  expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(log.body).toContain('calc.adds: expected 3, got -1');
  const foreign = await app.inject({ method: 'GET', url: logPath, headers: { 'x-api-token': otherKey } });
  expect([foreign.statusCode, foreign.body]).toEqual([
    404,
    `No log is kept for test run "${broken.decidedByTestRun}".`,
  ]);

  const conflicting = await record(4);
  expect(conflicting).toMatchObject({
    state: 'failed',
    prSha: shas[4],
    reason: 'START_TEST_RUN_MERGE_CONFLICT',
    reasonDetail: { kind: 'conflict', pr: 4, files: ['same.txt'], onTopOf: [3], clashesWith: [3] },
    readiness: { gitHubMergeability: 'not_mergeable' },
  });
  expect(conflicting.reasonText).toBe(
    'Failed: #4 conflicts with #3 (tested ahead of it on main) in file same.txt.',
  );
  const merged = await record(1);
  expect(merged).toMatchObject({ state: 'merged', prSha: shas[1], reason: 'MERGE_GRAPH_MERGE' });
  expect(merged.decidedByTestRun).toBe(merged.verifiedByTestRun);

  // The timeline, newest first, with Trunk's keys and lower-case reasons.
  const { timeline } = await record(2, { includeTimeline: true });
  expect(timeline?.[0]).toMatchObject({
    state: 'failed',
    reason: 'test_run_command_failed',
    failure: { reason: 'test_run_command_failed' },
    testRun: { testRunId: broken.decidedByTestRun },
  });
  expect(timeline?.at(-1)).toMatchObject({ state: 'not_ready', previousState: null });
  expect(timeline!.map((t) => t.timestamp)).toEqual([...timeline!.map((t) => t.timestamp)].sort().reverse());

  // listPullRequests carries the same explanation and keeps every finished PR's head.
  const page = PullRequestPage.strict().parse(
    (await post('listPullRequests', { ...queue, take: 10 })).json(),
  );
  for (const entry of page.pullRequests) {
    expect(entry.prSha).toBe(shas[entry.prNumber as 1 | 2 | 3 | 4]);
    expect(entry.reasonText).toMatch(/^[A-Z].*\.$/);
  }
}, 150_000);

test('a PR in testing has an estimate; a cancelled one names who cancelled it', async () => {
  h.openPr(5, { HOLD: 'until go\n', 'five.txt': '5\n' });
  h.openPr(6, { 'six.txt': '6\n' });
  for (const n of [5, 6])
    expect((await post('submitPullRequest', { ...queue, pr: { number: n } })).statusCode).toBe(200);
  await h.waitFor('#5 testing', async () => (await h.pr(5))?.state === 'testing');
  const estimated = (await record(5, { includeEstimatedTimeToMerge: true })).estimatedTimeToMerge!;
  // From this queue's own history: the runs of the test above were measured.
  expect(estimated).toMatchObject({ position: 1, testDurationSeconds: expect.any(Number) });
  expect(estimated.measuredRuns).toBeGreaterThan(0);
  // Held at its gate, the run may already be longer than every measured one: then it says so.
  if (estimated.remainingSeconds === null)
    expect(estimated.text).toMatch(
      /^No estimate: it has been testing for .*, longer than any of this queue's last \d+ measured runs\.$/,
    );
  else {
    expect(estimated.text).toMatch(
      /^About .*: the rest of its run \(.*\) and landing \(.*\), from this queue's last \d+ measured runs\.$/,
    );
    expect(Date.parse(estimated.estimatedMergeAt!)).toBeGreaterThanOrEqual(Date.now() - 1000);
  }

  expect((await post('cancelPullRequest', { ...queue, pr: { number: 6 } })).statusCode).toBe(200);
  // The queue applies the cancel, then tells the PR's workflow: its record follows a moment later.
  const cancelled = await h.waitFor('#6 cancelled on its record', async () => {
    const r = await record(6, { includeEstimatedTimeToMerge: true });
    return r.state === 'cancelled' ? r : undefined;
  });
  expect(cancelled).toMatchObject({
    state: 'cancelled',
    reason: 'USER_REQUESTED',
    reasonDetail: { kind: 'actor', actor: expect.stringContaining('API key "release bot"') },
    estimatedTimeToMerge: null,
  });
  expect(cancelled.reasonText).toMatch(
    /^Cancelled: API key "release bot" of organisation e2e-.* asked for it\.$/,
  );
  expect(JSON.stringify(cancelled)).not.toContain(key);
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  expect((await h.settled(5)).state).toBe('merged');
}, 120_000);
