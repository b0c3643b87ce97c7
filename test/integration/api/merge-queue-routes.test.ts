/**
 * Every merge-queue endpoint through the real HTTP stack (auth against real PostgreSQL keys) with a
 * stateful in-memory service: success shapes checked against the response schemas, the 400/404/409
 * sentences, Trunk client quirks (string PR numbers, upper-case enums, priority names, IMPACTS_ALL,
 * merge-action's exact request), tenant isolation, and one update id per request.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { createApiKeyStore, type Organisation } from '../../../stores/api-keys';
import { PullRequestPage, SubmittedPullRequest, TestingDetails } from '../../../api/schemas/merge-queue';
import { QueueSettings, QueueView } from '../../../api/schemas/queue';
import { buildTestApp } from '../../support/app';
import { claimRepository } from '../../support/ownership';
import { createMigratedDatabase } from '../../support/postgres';
import { createFakeMergeQueue } from './merge-queue-fake';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const Q = { repo: REPO, targetBranch: 'main' };
const WHERE = 'github.com/acme/app branch "main"';
const NOW = Date.parse('2026-03-01T12:00:30.000Z');

let pool: Pool;
let app: FastifyInstance;
let key: string;
let otherKey: string;
let org: Organisation;
const fake = createFakeMergeQueue(() => NOW);

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_merge_queue'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  otherKey = (await keys.create('globex')).key;
  org = (await keys.authenticate(key))!;
  // acme owns o/r too (ADR 0006), so merge-action's request below reaches the service.
  await claimRepository(pool, 'acme', { host: 'github.com', owner: 'o', name: 'r' });
  ({ app } = await buildTestApp(pool, { mergeQueue: fake.service }));
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

const post = (path: string, body: object, token = key) =>
  app.inject({
    method: 'POST',
    url: `/v1/${path}`,
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    payload: JSON.stringify(body),
  });

/** The body parses against the response schema with no field beyond it. */
function expectShape<T extends z.ZodObject>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.strict().safeParse(body);
  if (!parsed.success) throw new Error(`response does not match: ${parsed.error.message}`);
  return parsed.data as z.infer<T>;
}

function expectText(res: Awaited<ReturnType<typeof post>>, status: number, message: string) {
  expect({ status: res.statusCode, body: res.body }).toEqual({ status, body: message });
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
}

const lastCall = () => fake.calls[fake.calls.length - 1]!;

describe('queues', () => {
  test('createQueue → 200 {}, upper-case mode accepted; getQueue answers lower case', async () => {
    const res = await post('createQueue', { ...Q, mode: 'PARALLEL', concurrency: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    const queue = expectShape(QueueView, (await post('getQueue', Q)).json());
    expect(queue).toMatchObject({ branch: 'main', mode: 'parallel', concurrency: 2, state: 'running' });
    expect(queue.enqueuedPullRequests).toEqual([]);
  });

  test("createQueue again → 409 with Trunk's sentence", async () => {
    expectText(
      await post('createQueue', Q),
      409,
      'A merge queue already exists for branch "main" in this repository.',
    );
  });

  test('createQueue refuses concurrency 0', async () => {
    expectText(
      await post('createQueue', { ...Q, concurrency: 0 }),
      400,
      "Field 'concurrency' must be at least 1.",
    );
  });

  test('getQueue of an unknown queue → 404', async () => {
    expectText(
      await post('getQueue', { ...Q, targetBranch: 'dev' }),
      404,
      'No merge queue exists for branch "dev" of github.com/acme/app.',
    );
  });

  test('another organisation does not see the queue', async () => {
    expectText(
      await post('getQueue', Q, otherKey),
      404,
      'No merge queue exists for branch "main" of github.com/acme/app.',
    );
  });

  test('updateQueue → the settings without enqueuedPullRequests; enums in any case; extras ignored', async () => {
    const res = await post('updateQueue', {
      ...Q,
      state: 'PAUSED',
      batch: true,
      pendingFailureDepth: 0,
      mergeMethod: 'REBASE',
      requiredStatuses: ['ci/test'],
      extensionEnabled: true,
      enqueueingLabel: 'trunk-merge-queue-submit',
      notReadyTimeoutHours: 24,
    });
    expect(res.statusCode).toBe(200);
    const settings = expectShape(QueueSettings, res.json());
    expect(settings).toMatchObject({
      state: 'paused',
      batch: true,
      mergeMethod: 'rebase',
      requiredStatuses: ['ci/test'],
    });
    expect(res.json()).not.toHaveProperty('enqueuedPullRequests');
    expect(lastCall().request).not.toHaveProperty('somethingElse');
  });

  test('updateQueue refuses switching_modes and an unknown queue', async () => {
    expectText(
      await post('updateQueue', { ...Q, state: 'SWITCHING_MODES' }),
      400,
      "Field 'state' must be one of: running, paused, draining.",
    );
    expectText(
      await post('updateQueue', { ...Q, targetBranch: 'dev', batch: true }),
      404,
      'No merge queue exists for branch "dev" of github.com/acme/app.',
    );
  });

  test('deleteQueue: 404 when missing, 400 while PRs remain, then 200', async () => {
    const rel = { ...Q, targetBranch: 'release' };
    expectText(
      await post('deleteQueue', rel),
      404,
      'No merge queue exists for branch "release" of github.com/acme/app.',
    );
    await post('createQueue', rel);
    await post('submitPullRequest', { ...rel, pr: { number: 5 } });
    expectText(
      await post('deleteQueue', rel),
      400,
      'The merge queue for github.com/acme/app branch "release" still holds 1 pull request; cancel them before deleting it.',
    );
    await post('cancelPullRequest', { ...rel, pr: { number: 5 } });
    const res = await post('deleteQueue', rel);
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect((await post('getQueue', rel)).statusCode).toBe(404);
  });
});

describe('pull requests', () => {
  test('submitPullRequest with pr.number as a string and a priority name → 200 {}', async () => {
    const res = await post('submitPullRequest', {
      ...Q,
      pr: { number: '101' },
      priority: 'HIGH',
      noBatch: true,
    });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(lastCall().request).toMatchObject({ pr: { number: 101 }, priority: 10, noBatch: true });
  });

  test('getSubmittedPullRequest answers the compat shape', async () => {
    const pr = expectShape(
      SubmittedPullRequest,
      (await post('getSubmittedPullRequest', { ...Q, pr: { number: 101 } })).json(),
    );
    expect(pr).toMatchObject({
      prNumber: 101,
      state: 'pending',
      priorityValue: 10,
      priorityName: 'high',
      usedDefaultPriorityName: 'medium',
      noBatch: true,
      isCurrentlySubmittedToQueue: true,
      readiness: { gitHubMergeability: 'mergeable' },
    });
    expect(pr.stateChangedAt).toBe('2026-03-01T12:00:30.000Z');
  });

  test('resubmission updates the entry in place', async () => {
    const before = (await post('getSubmittedPullRequest', { ...Q, pr: { number: 101 } })).json<{
      id: string;
    }>();
    const res = await post('submitPullRequest', { ...Q, pr: { number: 101 }, priority: 200 });
    expect(res.statusCode).toBe(200);
    const after = (await post('getSubmittedPullRequest', { ...Q, pr: { number: 101 } })).json();
    expect(after).toMatchObject({ id: before.id, priorityValue: 200, priorityName: 'low', noBatch: false });
  });

  test('getQueue lists enqueued PRs in queue order', async () => {
    await post('submitPullRequest', { ...Q, pr: { number: 102 } });
    await post('submitPullRequest', { ...Q, pr: { number: 103 }, priority: 'urgent' });
    const queue = expectShape(QueueView, (await post('getQueue', Q)).json());
    expect(queue.enqueuedPullRequests.map((p) => [p.prNumber, p.priorityName, p.skipTheLine])).toEqual([
      [103, 'urgent', true],
      [102, 'medium', false],
      [101, 'low', false],
    ]);
  });

  test('priority out of range → 400', async () => {
    expectText(
      await post('submitPullRequest', { ...Q, pr: { number: 104 }, priority: 300 }),
      400,
      "Field 'priority' must be an integer from 0 to 255 or one of: urgent, high, medium, low.",
    );
  });

  test('pr.number that is not a number → 400', async () => {
    expectText(
      await post('submitPullRequest', { ...Q, pr: { number: 'abc' } }),
      400,
      "Field 'pr.number' must be a number or a numeric string.",
    );
  });

  test('submit to an unknown queue → 404', async () => {
    expectText(
      await post('submitPullRequest', { ...Q, targetBranch: 'dev', pr: { number: 1 } }),
      404,
      'No merge queue exists for branch "dev" of github.com/acme/app.',
    );
  });

  test('restartTestsOnPullRequest → 200 {}; 404 when not in the queue', async () => {
    const res = await post('restartTestsOnPullRequest', { ...Q, pr: { number: '102' } });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(fake.queue(org, Q)!.prs.get(102)!.restarts).toBe(1);
    expectText(
      await post('restartTestsOnPullRequest', { ...Q, pr: { number: 999 } }),
      404,
      `Pull request #999 is not in the merge queue for ${WHERE}.`,
    );
  });

  test('cancelPullRequest → 200 {}; the record stays readable; a second cancel → 404', async () => {
    const res = await post('cancelPullRequest', { ...Q, pr: { number: 102 } });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    const pr = expectShape(
      SubmittedPullRequest,
      (await post('getSubmittedPullRequest', { ...Q, pr: { number: 102 } })).json(),
    );
    expect(pr).toMatchObject({ state: 'cancelled', isCurrentlySubmittedToQueue: false });
    expectText(
      await post('cancelPullRequest', { ...Q, pr: { number: 102 } }),
      404,
      `Pull request #102 is not in the merge queue for ${WHERE}.`,
    );
  });

  test('getSubmittedPullRequest of a PR never submitted → 404', async () => {
    expectText(
      await post('getSubmittedPullRequest', { ...Q, pr: { number: 77 } }),
      404,
      'Pull request #77 was never submitted to the merge queue for branch "main" of github.com/acme/app.',
    );
  });

  test('listPullRequests: shape, state filter in any case, pages with a cursor', async () => {
    const first = expectShape(PullRequestPage, (await post('listPullRequests', { ...Q, take: 2 })).json());
    expect(first.pullRequests.map((p) => p.prNumber)).toEqual([103, 102]);
    expect(first.nextCursor).toBeDefined();
    const second = expectShape(
      PullRequestPage,
      (await post('listPullRequests', { ...Q, take: 2, cursor: first.nextCursor })).json(),
    );
    expect(second.pullRequests.map((p) => p.prNumber)).toEqual([101]);
    expect(second.nextCursor).toBeUndefined();
    const cancelled = (await post('listPullRequests', { ...Q, state: 'CANCELLED' })).json<{
      pullRequests: { prNumber: number }[];
    }>();
    expect(cancelled.pullRequests.map((p) => p.prNumber)).toEqual([102]);
    expectText(await post('listPullRequests', { ...Q, take: 101 }), 400, "Field 'take' must be at most 100.");
  });
});

describe('impacted targets', () => {
  test.each([
    ['a list', ['//a:b'], ['//a:b']],
    ['"ALL"', 'ALL', 'ALL'],
    ['"IMPACTS_ALL"', 'IMPACTS_ALL', 'ALL'],
    ['an empty list', [], []],
  ])('%s → 200 {}', async (_name, impactedTargets, expected) => {
    const res = await post('setImpactedTargets', { ...Q, pr: { number: 101, sha: 'abc' }, impactedTargets });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(lastCall().request).toMatchObject({ impactedTargets: expected });
  });

  test("Trunk merge-action's exact request → 200", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/setImpactedTargets',
      headers: { 'Content-Type': 'application/json', 'x-api-token': key, 'x-forked-workflow-run-id': '' },
      payload:
        '{"repo":{"host":"github.com","owner":"o","name":"r"},"pr":{"number":"123","sha":"abc"},"targetBranch":"main","impactedTargets":["//a:b"]}',
    });
    // No queue for o/r in the fake: the route reached the service with the parsed request.
    expect(res.statusCode).toBe(404);
    expect(lastCall()).toMatchObject({
      method: 'setImpactedTargets',
      request: {
        repo: { owner: 'o', name: 'r' },
        pr: { number: 123, sha: 'abc' },
        impactedTargets: ['//a:b'],
      },
    });
    await post('createQueue', { repo: { host: 'github.com', owner: 'o', name: 'r' }, targetBranch: 'main' });
    const again = await app.inject({
      method: 'POST',
      url: '/v1/setImpactedTargets',
      headers: { 'Content-Type': 'application/json', 'x-api-token': key, 'x-forked-workflow-run-id': '' },
      payload:
        '{"repo":{"host":"github.com","owner":"o","name":"r"},"pr":{"number":"123","sha":"abc"},"targetBranch":"main","impactedTargets":["//a:b"]}',
    });
    expect([again.statusCode, again.json()]).toEqual([200, {}]);
  });

  test('a bad impactedTargets value → 400', async () => {
    expectText(
      await post('setImpactedTargets', { ...Q, pr: { number: 101, sha: 'abc' }, impactedTargets: 'SOME' }),
      400,
      'Field \'impactedTargets\' must be a list of target names or "ALL".',
    );
  });
});

describe('testing', () => {
  const RUN: TestingDetails = {
    requiredStatuses: ['ci/test'],
    requiredStatusesSource: 'merge_instance',
    testBranch: 'railyard-merge/pr-101/run-1',
    testBranchSha: 'f00d',
    createdAt: '2026-03-01T12:00:00.000Z',
    status: 'in_progress',
    checkSuites: [],
    statusChecks: [{ context: 'ci/test', state: 'PENDING' }],
    testedPullRequests: [{ prNumber: 101, prUrl: 'https://github.com/acme/app/pull/101', title: 'PR 101' }],
    dependentPrs: [],
  };

  test('getMergeQueueTestingDetails answers the compat shape; unknown run → 404', async () => {
    fake.queue(org, Q)!.runs.set('run-1', RUN);
    const res = await post('getMergeQueueTestingDetails', { ...Q, testRunId: 'run-1' });
    expect(expectShape(TestingDetails, res.json())).toEqual(RUN);
    expectText(
      await post('getMergeQueueTestingDetails', { ...Q, testRunId: 'nope' }),
      404,
      'No test run "nope" exists in the merge queue for branch "main" of github.com/acme/app.',
    );
  });

  test('reportTestStatus → 200 {}, state in any case; 404 without a queue; 400 for a bad state', async () => {
    const body = { ...Q, sha: 'f00d', context: 'ci/test', state: 'SUCCESS', url: 'https://ci.example/1' };
    const res = await post('reportTestStatus', body);
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    expect(fake.queue(org, Q)!.statuses.at(-1)).toMatchObject({
      sha: 'f00d',
      context: 'ci/test',
      state: 'success',
    });
    expectText(
      await post('reportTestStatus', { ...body, targetBranch: 'dev' }),
      404,
      'No merge queue exists for branch "dev" of github.com/acme/app.',
    );
    expectText(
      await post('reportTestStatus', { ...body, state: 'passed' }),
      400,
      "Field 'state' must be one of: pending, success, failure, error.",
    );
  });
});

describe('update ids', () => {
  const idOf = async (path: string, body: object, token = key) => {
    await post(path, body, token);
    return lastCall().updateId;
  };

  test('every request without an Idempotency-Key carries its own update id, the same body too', async () => {
    // A resubmission right after a fix must reach the queue as a new request (issue 11).
    const body = { ...Q, pr: { number: 101 }, priority: 'low' };
    const first = await idOf('submitPullRequest', body);
    const again = await idOf('submitPullRequest', body);
    expect(first).toMatch(/^submitPullRequest\//);
    expect(again).toMatch(/^submitPullRequest\//);
    expect(again).not.toBe(first);
    const restart = { ...Q, pr: { number: 101 } };
    expect(await idOf('restartTestsOnPullRequest', restart)).not.toBe(
      await idOf('restartTestsOnPullRequest', restart),
    );
  });
});

test('the OpenAPI document lists every merge-queue endpoint and explains reportTestStatus', async () => {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
    paths: Record<string, { post?: { description?: string } }>;
  }>();
  const endpoints = [
    'submitPullRequest',
    'cancelPullRequest',
    'restartTestsOnPullRequest',
    'getSubmittedPullRequest',
    'setImpactedTargets',
    'getMergeQueueTestingDetails',
    'createQueue',
    'deleteQueue',
    'getQueue',
    'updateQueue',
    'listPullRequests',
    'reportTestStatus',
  ];
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(endpoints.map((e) => `/v1/${e}`)));
  expect(doc.paths['/v1/reportTestStatus']?.post?.description).toMatch(/requiredStatuses/);
});
