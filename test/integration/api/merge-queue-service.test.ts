/**
 * The Temporal-backed MergeQueueService against the real dev server: first without a worker (how it
 * starts queues, what it calls missing, the visibility query and cursors, the 503 deadline), then
 * against the real queue and PR workflows run by an in-process worker (the message contract).
 */
import { randomUUID } from 'node:crypto';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import type { Change } from '../../../api/routes/merge-queue/service';
import { PullRequestPage, SubmittedPullRequest, TestingDetails } from '../../../api/schemas/merge-queue';
import { QueueSettings, QueueView } from '../../../api/schemas/queue';
import { queueWorkflowId, REPOSITORY, TARGET_BRANCH } from '../../../contract';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';

const gateway = (callTimeoutMs: number, taskQueue = `mq-api-${randomUUID()}`) =>
  createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue,
    callTimeoutMs,
  });

let n = 0;
const changeOf = (org: { id: string; slug: string }): Change => ({
  org,
  updateId: `test/${++n}/${randomUUID()}`,
});

describe('without a worker', () => {
  let temporal: TemporalGateway;
  let impatient: TemporalGateway;
  const org = { id: randomUUID(), slug: 'acme' };
  // A branch name git allows that would break a naively quoted visibility query.
  const key = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'rel"ease\'s/1' };

  beforeAll(() => {
    temporal = gateway(10_000);
    impatient = gateway(1_500, temporal.taskQueue);
  });
  afterAll(async () => {
    await temporal.close();
    await impatient.close();
  });

  test('createQueue starts queueWorkflow with the search attributes and a 20 s task timeout; a second one → 409', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    await service.createQueue(org, { ...key, mode: 'parallel' });
    const description = await temporal.client.workflow
      .getHandle(queueWorkflowId({ organisationId: org.id, ...key }))
      .describe();
    expect(description.type).toBe('queueWorkflow');
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(REPOSITORY)).toBe('github.com/acme/app');
    expect(description.typedSearchAttributes.get(TARGET_BRANCH)).toBe(key.targetBranch);
    // Room for a busy worker to replay a whole run within one task (QUEUE_WORKFLOW_TASK_TIMEOUT; the
    // 10 s default timed such replays out again and again, stalling the queue).
    expect(Number(description.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(20);
    await expect(service.createQueue(org, key)).rejects.toMatchObject({
      statusCode: 409,
      message: `A merge queue already exists for branch "${key.targetBranch}" in this repository.`,
    });
  });

  test('a queue nobody serves: reads and changes answer 503 after the deadline', async () => {
    const service = createMergeQueueService(createQueueClient(impatient));
    await expect(service.getQueue(org, key)).rejects.toMatchObject({ statusCode: 503 });
    // The update is waited on again only while the queue moves (calls.ts): its workflow task has
    // waited for a worker since the queue was created, so the queue reads as not moving at the first
    // deadline and the busy budget (60 s) is not spent.
    const started = Date.now();
    await expect(
      service.submitPullRequest(changeOf(org), { ...key, pr: { number: 1 }, priority: null }),
    ).rejects.toMatchObject({
      statusCode: 503,
      message: expect.stringMatching(/did not answer submitPullRequest within 1500 ms/),
    });
    expect(Date.now() - started).toBeLessThan(1_500 + 3_000);
  }, 20_000);

  test('the visibility query is accepted; an empty page has no cursor; a forged cursor → 400', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    const page = await service.listPullRequests(org, { ...key, state: 'merged', take: 10 });
    expect(PullRequestPage.strict().parse(page)).toEqual({ pullRequests: [] });
    await expect(
      service.listPullRequests(org, { ...key, take: 10, cursor: 'bm90LWEtdG9rZW4' }),
    ).rejects.toMatchObject({
      statusCode: 400,
      message: "Field 'cursor' is not a cursor this server issued for this listing.",
    });
  });

  test('another organisation, a missing queue or PR: 404 / null', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    const other = { id: randomUUID(), slug: 'globex' };
    const missing = `No merge queue exists for branch "${key.targetBranch}" of github.com/acme/app.`;
    expect(await service.getQueue(other, key)).toBeNull();
    await expect(
      service.cancelPullRequest(changeOf(other), { ...key, pr: { number: 1 } }),
    ).rejects.toMatchObject({
      statusCode: 404,
      message: missing,
    });
    await expect(
      service.reportTestStatus(other, { ...key, sha: 'abc', context: 'ci', state: 'success' }),
    ).rejects.toMatchObject({ statusCode: 404, message: missing });
    await expect(service.listPullRequests(other, { ...key, take: 5 })).rejects.toMatchObject({
      statusCode: 404,
    });
    expect(await service.getSubmittedPullRequest(org, { ...key, pr: { number: 42 } })).toBeNull();
  });

  test('a queue whose workflow ended is missing, and can be created again', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    await temporal.client.workflow
      .getHandle(queueWorkflowId({ organisationId: org.id, ...key }))
      .terminate('test');
    expect(await service.getQueue(org, key)).toBeNull();
    await expect(service.deleteQueue(changeOf(org), key)).rejects.toMatchObject({ statusCode: 404 });
    await expect(service.createQueue(org, key)).resolves.toBeUndefined();
  });
});

describe('against the real queue workflow', () => {
  let h: QueueHarness;
  let temporal: TemporalGateway;
  let org: { id: string; slug: string };
  let key: { repo: { host: string; owner: string; name: string }; targetBranch: string };

  beforeAll(async () => {
    h = await startQueueHarness();
    temporal = gateway(30_000);
    org = { id: h.key.organisationId, slug: 'e2e' };
    key = { repo: h.key.repo, targetBranch: h.key.targetBranch };
    await h.createQueue({ concurrency: 1 });
  }, 60_000);
  afterAll(async () => {
    await temporal.close();
    await h.close();
  });

  test('a PR goes through the API calls: submit, read, merged, listed, its run described', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    h.openPr(1, { 'one.txt': '1\n' });
    await service.submitPullRequest(changeOf(org), {
      ...key,
      pr: { number: 1 },
      priority: 10,
      noBatch: false,
    });
    const queued = await service.getSubmittedPullRequest(org, { ...key, pr: { number: 1 } });
    expect(SubmittedPullRequest.strict().parse(queued)).toMatchObject({ prNumber: 1, priorityName: 'high' });
    QueueView.strict().parse(await service.getQueue(org, key));

    await h.settled(1);
    const merged = SubmittedPullRequest.strict().parse(
      await service.getSubmittedPullRequest(org, { ...key, pr: { number: 1 } }),
    );
    expect(merged).toMatchObject({ state: 'merged', isCurrentlySubmittedToQueue: false });
    expect(merged.verifiedByTestRun).toEqual(expect.any(String));

    const details = await service.getTestingDetails(org, { ...key, testRunId: merged.verifiedByTestRun! });
    expect(TestingDetails.strict().parse(details)).toMatchObject({
      status: 'succeeded',
      testedPullRequests: [{ prNumber: 1 }],
    });
    expect(await service.getTestingDetails(org, { ...key, testRunId: 'no-such-run' })).toBeNull();

    const listed = await h.waitFor('the PR in visibility', async () => {
      const page = await service.listPullRequests(org, { ...key, state: 'merged', take: 10 });
      return page.pullRequests.length > 0 ? page : undefined;
    });
    expect(
      PullRequestPage.strict()
        .parse(listed)
        .pullRequests.map((p) => p.prNumber),
    ).toEqual([1]);
  }, 120_000);

  test("the queue's rejections keep their sentence and map to 404 / 400", async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    await expect(
      service.cancelPullRequest(changeOf(org), { ...key, pr: { number: 99 } }),
    ).rejects.toMatchObject({
      statusCode: 404,
      message: expect.stringMatching(/^Pull request #99 is not in the merge queue for .+\.$/),
    });
    const paused = await service.updateQueue(changeOf(org), {
      ...key,
      state: 'paused',
      requiredStatuses: [],
      enqueueingLabel: 'merge-me',
      notReadyTimeoutHours: 12,
    });
    // Terraform's extra settings are kept and returned, so a declarative client sees no drift.
    expect(QueueSettings.strict().parse(paused)).toMatchObject({
      state: 'paused',
      enqueueingLabel: 'merge-me',
      notReadyTimeoutHours: 12,
      extensionEnabled: false,
    });
    h.openPr(2, { 'two.txt': '2\n' });
    await service.submitPullRequest(changeOf(org), { ...key, pr: { number: 2 }, priority: null });
    await expect(service.deleteQueue(changeOf(org), key)).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/still holds 1 pull request/),
    });
  }, 60_000);

  test('a retried update id is applied once; pages of submissions; delete', async () => {
    const service = createMergeQueueService(createQueueClient(temporal));
    // One update id for both calls, as every retry under one Idempotency-Key carries.
    const retried = changeOf(org);
    await service.cancelPullRequest(retried, { ...key, pr: { number: 2 } });
    // Not in the queue any more: a new request would be refused, the retry answers as the first did.
    await expect(service.cancelPullRequest(retried, { ...key, pr: { number: 2 } })).resolves.toBeUndefined();
    await expect(
      service.cancelPullRequest(changeOf(org), { ...key, pr: { number: 2 } }),
    ).rejects.toMatchObject({
      statusCode: 404,
    });
    // Two submissions now (1 merged, 2 cancelled): page through them one at a time.
    await h.waitFor('both PRs in visibility', async () => {
      const all = await service.listPullRequests(org, { ...key, take: 10 });
      return all.pullRequests.length === 2;
    });
    const first = await service.listPullRequests(org, { ...key, take: 1 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await service.listPullRequests(org, { ...key, take: 1, cursor: first.nextCursor });
    expect([...first.pullRequests, ...second.pullRequests].map((p) => p.prNumber).sort()).toEqual([1, 2]);
    await expect(
      service.listPullRequests(org, { ...key, state: 'merged', take: 1, cursor: first.nextCursor }),
    ).rejects.toMatchObject({ statusCode: 400 });

    await service.deleteQueue(changeOf(org), key);
    await h.waitFor('the queue to end', async () => (await service.getQueue(org, key)) === null);
  }, 60_000);
});
