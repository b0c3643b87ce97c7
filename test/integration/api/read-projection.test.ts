/**
 * The read projection (ADR 0016) against the real queue and PR workflows: getQueue and
 * listPullRequests answer from PostgreSQL without asking any workflow, the same as the workflow reads
 * answer, and a client sees its own submission at once; the event log's append is the records' durable
 * path (notices folded in seq order, once).
 */
import { randomUUID } from 'node:crypto';
import {
  createQueueClient,
  createTemporalGateway,
  type QueueClient,
  type TemporalGateway,
} from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import type { Change } from '../../../api/routes/merge-queue/service';
import type { PullRequestEntry } from '../../../api/schemas/merge-queue';
import { createQueueViewStore } from '../../../events/store/queue-views';
import { createPrRecordStore } from '../../../events/store/pr-records';
import { createEventActivities, type TransitionEvent } from '../../../activities/events';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';
import { prDetails } from '../../support/pr-details';

let h: QueueHarness;
let temporal: TemporalGateway;
let n = 0;
const changeOf = (org: { id: string; slug: string }): Change => ({
  org,
  updateId: `test/${++n}/${randomUUID()}`,
});

/** Every workflow read the service makes, counted. */
const WORKFLOW_READS = ['readQueue', 'findQueue', 'readPullRequest', 'readPullRequests', 'listWorkflows'];
function counting(client: QueueClient): { client: QueueClient; reads: () => number; reset: () => void } {
  let reads = 0;
  const wrapped = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !WORKFLOW_READS.includes(prop) || typeof value !== 'function')
        return value;
      return (...args: unknown[]) => {
        reads += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: wrapped, reads: () => reads, reset: () => void (reads = 0) };
}

beforeAll(async () => {
  h = await startQueueHarness();
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: h.taskQueue,
    callTimeoutMs: 30_000,
  });
  await h.createQueue({ concurrency: 1 });
}, 60_000);
afterAll(async () => {
  await temporal.close();
  await h.close();
});

const byId = (a: PullRequestEntry, b: PullRequestEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

test('reads answer from PostgreSQL: own writes at once, the same answers as the workflows', async () => {
  const org = { id: h.key.organisationId, slug: 'e2e' };
  const key = { repo: h.key.repo, targetBranch: h.key.targetBranch };
  const watched = counting(createQueueClient(temporal));
  const projected = createMergeQueueService(watched.client, {
    projection: { views: createQueueViewStore(h.pool), records: createPrRecordStore(h.pool) },
  });
  const plain = createMergeQueueService(createQueueClient(temporal));

  // A queue the projection has never seen is asked once, then read from PostgreSQL.
  expect(await projected.getQueue(org, key)).toEqual(await plain.getQueue(org, key));
  watched.reset();
  await projected.getQueue(org, key);
  expect(watched.reads()).toBe(0);

  h.openPr(1, { 'one.txt': '1\n' });
  h.openPr(2, { BROKEN: 'x\n' });
  h.openPr(3, { 'three.txt': '3\n' });
  for (const pr of [1, 2, 3]) {
    await projected.submitPullRequest(changeOf(org), { ...key, pr: { number: pr }, priority: null });
    // Read your writes: the submission is listed and queued the moment submit answers.
    watched.reset();
    const listed = await projected.listPullRequests(org, { ...key, take: 10 });
    const queue = await projected.getQueue(org, key);
    expect(watched.reads()).toBe(0);
    expect(listed.pullRequests.map((p) => p.prNumber)).toContain(pr);
    expect(queue!.enqueuedPullRequests.map((p) => p.prNumber)).toContain(pr);
  }

  for (const pr of [1, 2, 3]) await h.settled(pr);
  // The queue's own moves reach the projection with its appends: the same view as the workflow's.
  await h.waitFor('the projected queue to match the workflow', async () => {
    const [a, b] = [await projected.getQueue(org, key), await plain.getQueue(org, key)];
    return JSON.stringify(a) === JSON.stringify(b) && a!.enqueuedPullRequests.length === 0;
  });
  // The same entries as the visibility listing, once visibility has them all.
  const fromWorkflows = await h.waitFor('visibility to list the three', async () => {
    const page = await plain.listPullRequests(org, { ...key, take: 10 });
    return page.pullRequests.length === 3 && page.pullRequests.every((p) => p.state !== 'testing')
      ? page
      : undefined;
  });
  watched.reset();
  const fromProjection = await projected.listPullRequests(org, { ...key, take: 10 });
  expect([...fromProjection.pullRequests].sort(byId)).toEqual([...fromWorkflows.pullRequests].sort(byId));
  expect(fromProjection.pullRequests.map((p) => p.prNumber).sort()).toEqual([1, 2, 3]);
  // Concluded ones, latest first.
  const concluded = fromProjection.pullRequests.map((p) => Date.parse(p.stateChangedAt));
  expect(concluded).toEqual([...concluded].sort((a, b) => b - a));
  expect(
    (await projected.listPullRequests(org, { ...key, state: 'failed', take: 10 })).pullRequests.map(
      (p) => p.prNumber,
    ),
  ).toEqual([2]);

  // Pages of one: every submission once, and a cursor belongs to its listing.
  const seen: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await projected.listPullRequests(org, { ...key, take: 1, ...(cursor ? { cursor } : {}) });
    seen.push(...page.pullRequests.map((p) => p.prNumber));
    cursor = page.nextCursor;
  } while (cursor);
  expect(seen.sort()).toEqual([1, 2, 3]);
  const first = await projected.listPullRequests(org, { ...key, take: 1 });
  await expect(
    projected.listPullRequests(org, { ...key, state: 'merged', take: 1, cursor: first.nextCursor! }),
  ).rejects.toMatchObject({ statusCode: 400 });
  expect(watched.reads()).toBe(0);

  // Deleted: the queue reads as gone once its workflow has ended.
  await projected.deleteQueue(changeOf(org), key);
  await h.waitFor('the queue to end', async () => (await projected.getQueue(org, key)) === null);
  await expect(projected.listPullRequests(org, { ...key, take: 1 })).rejects.toMatchObject({
    statusCode: 404,
  });
}, 150_000);

test("the event log's append folds the notices it carries: out of order, twice, the same record", async () => {
  const { appendTransitions } = createEventActivities({ pool: h.pool, allowPrivateWebhookUrls: false });
  const records = createPrRecordStore(h.pool);
  const submissionId = `durable-${randomUUID()}`;
  const details = prDetails({ title: 'durable', headSha: 'abc' });
  const event = (seq: number, to: 'pending' | 'cancelled'): TransitionEvent => ({
    organisationId: h.key.organisationId,
    repo: h.key.repo,
    targetBranch: h.key.targetBranch,
    prNumber: 900,
    submissionId,
    seq,
    from: null,
    to,
    reason: 'R',
    testRunId: null,
    batch: [900],
    isBisection: false,
    testBranch: null,
    testBranchSha: null,
    at: 5_000 + seq,
    title: 'durable',
    author: 'ada',
    headSha: 'abc',
    record: {
      submittedAt: 5_000,
      notice: {
        submissionId,
        seq,
        transition: { at: 5_000 + seq, from: null, to, reason: 'R', testRunId: null },
        details,
      },
    },
  });
  await appendTransitions({ events: [event(2, 'cancelled')] });
  await appendTransitions({ events: [event(1, 'pending'), event(2, 'cancelled')] });
  await appendTransitions({ events: [event(1, 'pending')] });
  const page = await records.list(h.key, { take: 100, state: 'cancelled' });
  const found = page.records.filter((r) => r.id === submissionId);
  expect(found).toHaveLength(1);
  expect(found[0]!.timeline.map((t) => t.to)).toEqual(['pending', 'cancelled']);
  expect(found[0]).toMatchObject({
    state: 'cancelled',
    isCurrentlySubmittedToQueue: false,
    stateChangedAt: 5_002,
  });
});
