/**
 * Every merge-queue endpoint through the real HTTP stack (auth against real PostgreSQL keys) and the
 * real queue: the Temporal-backed service, the queue and PR workflows run by a worker of this file,
 * real git repositories (test/support/api-stack.ts; a queue of its own per test). Success shapes
 * checked against the response schemas, the 400/404/409 sentences, Trunk client quirks (string PR
 * numbers, upper-case enums, priority names, IMPACTS_ALL, merge-action's exact request), tenant
 * isolation, one update id per request, and what restartTestsOnPullRequest, setImpactedTargets and
 * reportTestStatus change in the queue.
 *
 * Queues whose PRs must stay where they are submitted are paused (nothing starts testing); queues whose
 * PRs are tested have required statuses, so a run waits for statuses reported through the API and no
 * command runs.
 */
import type { z } from 'zod';
import { PullRequestPage, SubmittedPullRequest, TestingDetails } from '../../../api/schemas/merge-queue';
import { QueueSettings, QueueView } from '../../../api/schemas/queue';
import { useApiStack, type ApiQueue } from '../../support/api-stack';
import { waitFor } from '../../support/pr-waiting';

const api = useApiStack({ prefix: 'api_merge_queue' });
/** A key of an organisation that owns nothing. */
let otherKey: string;

beforeAll(async () => {
  otherKey = (await api.stack().newOrganisation()).token;
});

type Answer = Awaited<ReturnType<ReturnType<typeof api.stack>['app']['inject']>>;

const post = (path: string, body: object, token: string): Promise<Answer> =>
  api.stack().app.inject({
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

function expectText(res: Answer, status: number, message: string) {
  expect({ status: res.statusCode, body: res.body }).toEqual({ status, body: message });
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
}

interface TestQueue extends ApiQueue {
  post(path: string, body: object): Promise<Answer>;
  /** `github.com/acme/widgets-… branch "main"`, as the queue's sentences name its queue. */
  where: string;
  /** Opens PR `n` (a file of its own on main) unless it is open; answers its head. */
  open(n: number): string;
  /** Opens PR `n` unless it is open, and submits it; expects 200. */
  submit(n: number, extra?: object, address?: object): Promise<void>;
  /** PR `n`'s record as getSubmittedPullRequest answers it. */
  pr(n: number): Promise<SubmittedPullRequest>;
  /** Waits until PR `n`'s record satisfies `ok`. */
  prUntil(
    n: number,
    what: string,
    ok: (pr: SubmittedPullRequest) => boolean,
    timeoutMs?: number,
  ): Promise<SubmittedPullRequest>;
}

/**
 * A repository and organisation of this test's own; with `create`, its `main` queue is created through
 * the API with those settings and then updated with `update` (paused, say).
 */
async function newQueue(create: object | false = {}, update?: object): Promise<TestQueue> {
  const q = await api.newQueue();
  const opened = new Map<number, string>();
  const t: TestQueue = {
    ...q,
    where: `${q.repoLabel} branch "main"`,
    post: (path, body) => post(path, body, q.token),
    open(n) {
      const head = opened.get(n) ?? q.h.openPr(n, { [`pr-${n}.txt`]: `${n}\n` });
      opened.set(n, head);
      return head;
    },
    async submit(n, extra = {}, address = q.Q) {
      t.open(n);
      const res = await t.post('submitPullRequest', { ...address, pr: { number: n }, ...extra });
      expect([res.statusCode, res.body]).toEqual([200, '{}']);
    },
    async pr(n) {
      const res = await t.post('getSubmittedPullRequest', { ...q.Q, pr: { number: n } });
      expect(res.statusCode).toBe(200);
      return res.json<SubmittedPullRequest>();
    },
    prUntil: (n, what, ok, timeoutMs) =>
      waitFor(
        `PR #${n}: ${what}`,
        async () => {
          const pr = await t.pr(n);
          return ok(pr) ? pr : undefined;
        },
        timeoutMs,
      ),
  };
  if (create !== false) expect((await t.post('createQueue', { ...q.Q, ...create })).statusCode).toBe(200);
  if (update) expect((await t.post('updateQueue', { ...q.Q, ...update })).statusCode).toBe(200);
  return t;
}

const PAUSED = { state: 'paused' };
/** Runs wait for `ci/test` reported through reportTestStatus. */
const STATUSES = { requiredStatuses: ['ci/test'] };

/** The queue's test runs in progress (getMergeQueueTestingDetails without a testRunId). */
async function runsInProgress(q: TestQueue) {
  const res = await q.post('getMergeQueueTestingDetails', q.Q);
  expect(res.statusCode).toBe(200);
  return res.json<{ testRuns: (TestingDetails & { testRunId: string })[] }>().testRuns;
}

/** Waits for a run in progress testing PR `n` other than `not`; answers it. */
const runOf = (q: TestQueue, n: number, not?: string) =>
  waitFor(`a test run of PR #${n}`, async () =>
    // A run is listed before its test branch is pushed; a status needs the branch's sha.
    (await runsInProgress(q)).find(
      (r) => r.testRunId !== not && r.testedPullRequests.some((p) => p.prNumber === n) && !!r.testBranchSha,
    ),
  );

describe('queues', () => {
  test('createQueue → 200 {}, upper-case mode accepted; getQueue answers lower case', async () => {
    const q = await newQueue(false);
    const res = await q.post('createQueue', { ...q.Q, mode: 'PARALLEL', concurrency: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    const queue = expectShape(QueueView, (await q.post('getQueue', q.Q)).json());
    expect(queue).toMatchObject({ branch: 'main', mode: 'parallel', concurrency: 2, state: 'running' });
    expect(queue.enqueuedPullRequests).toEqual([]);
  });

  test("createQueue again → 409 with Trunk's sentence", async () => {
    const q = await newQueue();
    expectText(
      await q.post('createQueue', q.Q),
      409,
      'A merge queue already exists for branch "main" in this repository.',
    );
  });

  test('createQueue refuses concurrency 0', async () => {
    const q = await newQueue(false);
    expectText(
      await q.post('createQueue', { ...q.Q, concurrency: 0 }),
      400,
      "Field 'concurrency' must be at least 1.",
    );
  });

  test('getQueue of an unknown queue → 404', async () => {
    const q = await newQueue();
    expectText(
      await q.post('getQueue', { ...q.Q, targetBranch: 'dev' }),
      404,
      `No merge queue exists for branch "dev" of ${q.repoLabel}.`,
    );
  });

  test('another organisation does not see the queue', async () => {
    const q = await newQueue();
    expectText(
      await post('getQueue', q.Q, otherKey),
      404,
      `No merge queue exists for branch "main" of ${q.repoLabel}.`,
    );
  });

  test('updateQueue → the settings without enqueuedPullRequests; enums in any case; extras ignored', async () => {
    const q = await newQueue();
    const res = await q.post('updateQueue', {
      ...q.Q,
      state: 'PAUSED',
      batch: true,
      pendingFailureDepth: 0,
      mergeMethod: 'REBASE',
      requiredStatuses: ['ci/test'],
      extensionEnabled: true,
      enqueueingLabel: 'trunk-merge-queue-submit',
      notReadyTimeoutHours: 24,
      somethingElse: 'ignored',
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
    // What reached the queue: the update it accepted carries no unknown field.
    const accepted = (await q.acceptedUpdates()).filter((u) => u.name === 'updateQueue').at(-1)!;
    expect(JSON.stringify(accepted.input)).not.toContain('somethingElse');
  });

  test("railyard's adaptive batching: updateQueue sets it, getQueue answers it; fixed until set", async () => {
    const q = await newQueue();
    const before = expectShape(QueueView, (await q.post('getQueue', q.Q)).json());
    expect(before).toMatchObject({ batchingMode: 'fixed', batchingRunsPerPrTarget: 0.5, adaptivePlan: null });
    const res = await q.post('updateQueue', {
      ...q.Q,
      batch: true,
      batchingMode: 'ADAPTIVE',
      batchingRunsPerPrTarget: 0.75,
    });
    expect(res.statusCode).toBe(200);
    const want = { batch: true, batchingMode: 'adaptive', batchingRunsPerPrTarget: 0.75 };
    expect(expectShape(QueueSettings, res.json())).toMatchObject(want);
    const view = expectShape(QueueView, (await q.post('getQueue', q.Q)).json());
    expect(view).toMatchObject(want);
    // The plan it schedules by, within its settings, for the failure rate it starts from.
    const plan = view.adaptivePlan!;
    expect(plan.batchSize).toBeGreaterThanOrEqual(1);
    expect(plan.batchSize).toBeLessThanOrEqual(view.batchingMinSize);
    expect(plan.depth).toBeGreaterThanOrEqual(1);
    expect(plan.depth).toBeLessThanOrEqual(view.concurrency);
    expect(plan.failureRate).toBeGreaterThan(0);
    expect(plan.failureRate).toBeLessThan(1);
    // An update without them (what Trunk's clients send) keeps them.
    const later = await q.post('updateQueue', { ...q.Q, concurrency: 2 });
    expect(later.json()).toMatchObject({ ...want, concurrency: 2 });
  });

  test('updateQueue refuses switching_modes and an unknown queue', async () => {
    const q = await newQueue();
    expectText(
      await q.post('updateQueue', { ...q.Q, state: 'SWITCHING_MODES' }),
      400,
      "Field 'state' must be one of: running, paused, draining.",
    );
    expectText(
      await q.post('updateQueue', { ...q.Q, targetBranch: 'dev', batch: true }),
      404,
      `No merge queue exists for branch "dev" of ${q.repoLabel}.`,
    );
  });

  test('deleteQueue: 404 when missing, 400 while PRs remain, then 200', async () => {
    const q = await newQueue(false);
    const rel = q.branch('release');
    expectText(
      await q.post('deleteQueue', rel),
      404,
      `No merge queue exists for branch "release" of ${q.repoLabel}.`,
    );
    await q.post('createQueue', rel);
    await q.post('updateQueue', { ...rel, ...PAUSED });
    await q.submit(5, {}, rel);
    expectText(
      await q.post('deleteQueue', rel),
      400,
      `The merge queue for ${q.repoLabel} branch "release" still holds 1 pull request; cancel them before deleting it.`,
    );
    await q.post('cancelPullRequest', { ...rel, pr: { number: 5 } });
    const res = await q.post('deleteQueue', rel);
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    // The queue's workflow ends right after answering the delete.
    await waitFor('the deleted queue to read as missing', async () =>
      (await q.post('getQueue', rel)).statusCode === 404 ? true : undefined,
    );
  });
});

describe('pull requests', () => {
  test('submitPullRequest with pr.number as a string and a priority name → 200 {}', async () => {
    const q = await newQueue({}, PAUSED);
    q.open(101);
    const res = await q.post('submitPullRequest', {
      ...q.Q,
      pr: { number: '101' },
      priority: 'HIGH',
      noBatch: true,
    });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    // The queue holds what the route parsed.
    expect(await q.pr(101)).toMatchObject({ prNumber: 101, priorityValue: 10, noBatch: true });
  });

  test('getSubmittedPullRequest answers the compat shape', async () => {
    const q = await newQueue({}, PAUSED);
    const before = Date.now();
    await q.submit(101, { priority: 'HIGH', noBatch: true });
    const after = Date.now();
    const pr = expectShape(
      SubmittedPullRequest,
      (await q.post('getSubmittedPullRequest', { ...q.Q, pr: { number: 101 } })).json(),
    );
    expect(pr).toMatchObject({
      prNumber: 101,
      state: 'pending',
      priorityValue: 10,
      priorityName: 'high',
      // A priority was given: the queue names it here too ('medium' only when none was).
      usedDefaultPriorityName: 'high',
      noBatch: true,
      isCurrentlySubmittedToQueue: true,
      readiness: { gitHubMergeability: 'mergeable' },
    });
    // When the queue admitted it, in ISO-8601 with milliseconds.
    expect(pr.stateChangedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(pr.stateChangedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(pr.stateChangedAt)).toBeLessThanOrEqual(after);
  });

  test('resubmission updates the entry in place', async () => {
    const q = await newQueue({}, PAUSED);
    await q.submit(101, { priority: 'HIGH', noBatch: true });
    await q.submit(102);
    const before = await q.pr(101);
    const res = await q.post('submitPullRequest', { ...q.Q, pr: { number: 101 }, priority: 200 });
    expect(res.statusCode).toBe(200);
    // The queue's entry: the same submission, re-placed behind PR 102 by its new priority.
    const queue = (await q.post('getQueue', q.Q)).json<QueueView>();
    expect(queue.enqueuedPullRequests.map((p) => [p.prNumber, p.id, p.priorityValue])).toEqual([
      [102, expect.any(String), 100],
      [101, before.id, 200],
    ]);
    expect(queue.enqueuedPullRequests[1]).toMatchObject({ priorityName: 'low', noBatch: false });
  });

  // Known defect, found on the real stack: a resubmission changes no state, so no transition reaches
  // the PR's record, which keeps the old priority and noBatch until the next one (the in-memory fake
  // updated it at once). Flip to `test` when the queue refreshes the record on a priority change.
  test("resubmission updates the PR's record as well", async () => {
    const q = await newQueue({}, PAUSED);
    await q.submit(101, { priority: 'HIGH', noBatch: true });
    const before = await q.pr(101);
    const res = await q.post('submitPullRequest', { ...q.Q, pr: { number: 101 }, priority: 200 });
    expect(res.statusCode).toBe(200);
    const after = await q.prUntil(101, 'the new priority', (p) => p.priorityValue !== 10, 2_000);
    expect(after).toMatchObject({ id: before.id, priorityValue: 200, priorityName: 'low', noBatch: false });
  });

  test('getQueue lists enqueued PRs in queue order', async () => {
    const q = await newQueue({}, PAUSED);
    await q.submit(101, { priority: 200 });
    await q.submit(102);
    await q.submit(103, { priority: 'urgent' });
    const queue = expectShape(QueueView, (await q.post('getQueue', q.Q)).json());
    expect(queue.enqueuedPullRequests.map((p) => [p.prNumber, p.priorityName, p.skipTheLine])).toEqual([
      [103, 'urgent', true],
      [102, 'medium', false],
      [101, 'low', false],
    ]);
  });

  test('priority out of range → 400', async () => {
    const q = await newQueue();
    expectText(
      await q.post('submitPullRequest', { ...q.Q, pr: { number: 104 }, priority: 300 }),
      400,
      "Field 'priority' must be an integer from 0 to 255 or one of: urgent, high, medium, low.",
    );
  });

  test('pr.number that is not a number → 400', async () => {
    const q = await newQueue();
    expectText(
      await q.post('submitPullRequest', { ...q.Q, pr: { number: 'abc' } }),
      400,
      "Field 'pr.number' must be a number or a numeric string.",
    );
  });

  test('submit to an unknown queue → 404', async () => {
    const q = await newQueue();
    expectText(
      await q.post('submitPullRequest', { ...q.Q, targetBranch: 'dev', pr: { number: 1 } }),
      404,
      `No merge queue exists for branch "dev" of ${q.repoLabel}.`,
    );
  });

  test('restartTestsOnPullRequest → 200 {} and a new test run of the PR; 404 when not in the queue', async () => {
    const q = await newQueue({}, STATUSES);
    await q.submit(102);
    const first = await runOf(q, 102);
    const res = await q.post('restartTestsOnPullRequest', { ...q.Q, pr: { number: '102' } });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    // The queue tests it again: a new run, on a test branch of its own; the first one is over.
    const second = await runOf(q, 102, first.testRunId);
    expect(second.testBranch).not.toBe(first.testBranch);
    const record = await q.prUntil(102, 'both runs in its record', (p) => p.testRuns.length === 2);
    expect(record).toMatchObject({ state: 'testing', isCurrentlySubmittedToQueue: true });
    expect(record.testRuns.map((r) => r.testRunId).sort()).toEqual(
      [first.testRunId, second.testRunId].sort(),
    );
    expect((await runsInProgress(q)).map((r) => r.testRunId)).toEqual([second.testRunId]);
    expectText(
      await q.post('restartTestsOnPullRequest', { ...q.Q, pr: { number: 999 } }),
      404,
      `Pull request #999 is not in the merge queue for ${q.where}.`,
    );
  });

  test('cancelPullRequest → 200 {}; the record stays readable; a second cancel → 404', async () => {
    const q = await newQueue({}, PAUSED);
    await q.submit(102);
    const res = await q.post('cancelPullRequest', { ...q.Q, pr: { number: 102 } });
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    // The queue delivers the transition to the PR's record right after answering.
    const pr = expectShape(
      SubmittedPullRequest,
      await q.prUntil(102, 'cancelled', (p) => p.state === 'cancelled'),
    );
    expect(pr).toMatchObject({ state: 'cancelled', isCurrentlySubmittedToQueue: false });
    expectText(
      await q.post('cancelPullRequest', { ...q.Q, pr: { number: 102 } }),
      404,
      `Pull request #102 is not in the merge queue for ${q.where}.`,
    );
  });

  test('getSubmittedPullRequest of a PR never submitted → 404', async () => {
    const q = await newQueue();
    expectText(
      await q.post('getSubmittedPullRequest', { ...q.Q, pr: { number: 77 } }),
      404,
      `Pull request #77 was never submitted to the merge queue for branch "main" of ${q.repoLabel}.`,
    );
  });

  test('listPullRequests: shape, state filter in any case, pages with a cursor', async () => {
    const q = await newQueue({}, PAUSED);
    for (const n of [101, 102, 103]) await q.submit(n);
    await q.post('cancelPullRequest', { ...q.Q, pr: { number: 102 } });
    const cancelledOnly = () => q.post('listPullRequests', { ...q.Q, state: 'CANCELLED' });
    // Visibility (what the listing reads) follows the records.
    await waitFor('the three submissions listed, PR 102 as cancelled', async () => {
      const all = (await q.post('listPullRequests', q.Q)).json<PullRequestPage>();
      const cancelled = (await cancelledOnly()).json<PullRequestPage>();
      return all.pullRequests.length === 3 && cancelled.pullRequests.length === 1;
    });

    const first = expectShape(
      PullRequestPage,
      (await q.post('listPullRequests', { ...q.Q, take: 2 })).json(),
    );
    // Submissions still in the queue first, newest first; then the concluded ones.
    expect(first.pullRequests.map((p) => p.prNumber)).toEqual([103, 101]);
    expect(first.nextCursor).toBeDefined();
    const second = expectShape(
      PullRequestPage,
      (await q.post('listPullRequests', { ...q.Q, take: 2, cursor: first.nextCursor })).json(),
    );
    expect(second.pullRequests.map((p) => p.prNumber)).toEqual([102]);
    expect(second.nextCursor).toBeUndefined();
    const cancelled = (await cancelledOnly()).json<{ pullRequests: { prNumber: number }[] }>();
    expect(cancelled.pullRequests.map((p) => p.prNumber)).toEqual([102]);
    expectText(
      await q.post('listPullRequests', { ...q.Q, take: 101 }),
      400,
      "Field 'take' must be at most 100.",
    );
  });
});

describe('impacted targets', () => {
  test.each([
    ['a list', ['//a:b'], ['//a:b']],
    ['"ALL"', 'ALL', ['ALL']],
    ['"IMPACTS_ALL"', 'IMPACTS_ALL', ['ALL']],
    ['an empty list', [], []],
  ])(
    '%s → 200 {}; the PR is ready and its run carries the targets',
    async (_name, impactedTargets, expected) => {
      // A parallel queue admits a PR only once it has targets for its head.
      const q = await newQueue({ mode: 'parallel' }, STATUSES);
      await q.submit(101);
      const waiting = await q.pr(101);
      expect(waiting).toMatchObject({
        state: 'not_ready',
        readiness: { requiresImpactedTargets: true, hasImpactedTargets: false },
      });
      const res = await q.post('setImpactedTargets', {
        ...q.Q,
        pr: { number: 101, sha: waiting.prSha },
        impactedTargets,
      });
      expect([res.statusCode, res.json()]).toEqual([200, {}]);
      // The queue admits it and tells its record right after answering.
      const ready = await q.prUntil(101, 'ready', (p) => p.state !== 'not_ready');
      expect(ready).toMatchObject({ readiness: { hasImpactedTargets: true } });
      const run = await runOf(q, 101);
      expect(run.impactedTargets).toEqual(expected);
      expect(await q.prUntil(101, 'testing', (p) => p.state === 'testing')).toMatchObject({
        readiness: { hasImpactedTargets: true },
      });
    },
  );

  test("Trunk merge-action's exact request → 200", async () => {
    const q = await newQueue(false);
    const sha = q.open(123);
    const { host, owner, name } = q.Q.repo;
    // merge-action's body, byte for byte but for the repository and the PR's head.
    const payload = `{"repo":{"host":"${host}","owner":"${owner}","name":"${name}"},"pr":{"number":"123","sha":"${sha}"},"targetBranch":"main","impactedTargets":["//a:b"]}`;
    const send = () =>
      api.stack().app.inject({
        method: 'POST',
        url: '/v1/setImpactedTargets',
        headers: {
          'Content-Type': 'application/json',
          'x-api-token': q.token,
          'x-forked-workflow-run-id': '',
        },
        payload,
      });
    // No queue yet: the route reached the service, which answers the queue's 404.
    const res = await send();
    expectText(res, 404, `No merge queue exists for branch "main" of ${q.repoLabel}.`);
    await q.post('createQueue', { ...q.Q, mode: 'parallel' });
    await q.post('updateQueue', { ...q.Q, ...PAUSED });
    const again = await send();
    expect([again.statusCode, again.json()]).toEqual([200, {}]);
    // merge-action uploads on push, before the PR is submitted: the queue kept the targets for that
    // head (PR 123, the sha), so in this parallel queue the PR is ready as soon as it is submitted
    // rather than `not_ready` waiting for targets, and its record says it has them.
    await q.submit(123);
    expect(await q.pr(123)).toMatchObject({
      state: 'pending',
      prSha: sha,
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: true },
    });
  });

  test('a bad impactedTargets value → 400', async () => {
    const q = await newQueue();
    expectText(
      await q.post('setImpactedTargets', {
        ...q.Q,
        pr: { number: 101, sha: 'abc' },
        impactedTargets: 'SOME',
      }),
      400,
      'Field \'impactedTargets\' must be a list of target names or "ALL".',
    );
  });
});

describe('testing', () => {
  test('getMergeQueueTestingDetails answers the compat shape; unknown run → 404', async () => {
    const q = await newQueue({}, STATUSES);
    await q.submit(101);
    const { testRunId, testBranch, testBranchSha, createdAt } = await runOf(q, 101);
    const report = { ...q.Q, sha: testBranchSha, context: 'ci/test', url: 'https://ci.example/1' };
    expect((await q.post('reportTestStatus', { ...report, state: 'pending' })).statusCode).toBe(200);
    const res = await waitFor('the pending status in the run', async () => {
      const r = await q.post('getMergeQueueTestingDetails', { ...q.Q, testRunId });
      return r.json<TestingDetails>().statusChecks.length > 0 ? r : undefined;
    });
    expect(expectShape(TestingDetails, res.json())).toEqual({
      requiredStatuses: ['ci/test'],
      requiredStatusesSource: 'merge_instance',
      testBranch,
      testBranchSha: q.h.fx.tip(testBranch),
      createdAt,
      status: 'in_progress',
      checkSuites: [],
      statusChecks: [{ context: 'ci/test', url: 'https://ci.example/1', state: 'PENDING' }],
      testedPullRequests: [{ prNumber: 101, prUrl: `https://${q.repoLabel}/pull/101`, title: 'PR 101' }],
      dependentPrs: [],
    });
    expect(testBranch).toMatch(new RegExp(`^railyard-merge/pr-101/`));
    expectText(
      await q.post('getMergeQueueTestingDetails', { ...q.Q, testRunId: 'nope' }),
      404,
      `No test run "nope" exists in the merge queue for branch "main" of ${q.repoLabel}.`,
    );
  });

  test('reportTestStatus → 200 {}, state in any case, and the status decides the run; 404 without a queue; 400 for a bad state', async () => {
    const q = await newQueue({}, STATUSES);
    await q.submit(101);
    const { testRunId, testBranchSha } = await runOf(q, 101);
    const body = {
      ...q.Q,
      sha: testBranchSha,
      context: 'ci/test',
      state: 'SUCCESS',
      url: 'https://ci.example/1',
    };
    const res = await q.post('reportTestStatus', body);
    expect([res.statusCode, res.json()]).toEqual([200, {}]);
    // The queue took it: the run passed on it and the PR merged, verified by that run.
    const merged = await q.prUntil(101, 'merged', (p) => p.state === 'merged');
    expect(merged.verifiedByTestRun).toBe(testRunId);
    const details = (
      await q.post('getMergeQueueTestingDetails', { ...q.Q, testRunId })
    ).json<TestingDetails>();
    expect(details).toMatchObject({
      status: 'succeeded',
      statusChecks: [{ context: 'ci/test', url: 'https://ci.example/1', state: 'SUCCESS' }],
    });
    expect(q.h.fx.tip('main')).not.toBe(q.h.fx.base);
    expectText(
      await q.post('reportTestStatus', { ...body, targetBranch: 'dev' }),
      404,
      `No merge queue exists for branch "dev" of ${q.repoLabel}.`,
    );
    expectText(
      await q.post('reportTestStatus', { ...body, state: 'passed' }),
      400,
      "Field 'state' must be one of: pending, success, failure, error.",
    );
  });
});

describe("the preflight (railyard's own, local host)", () => {
  interface View {
    state: string;
    result: { kind: string; sentence: string; branch?: string; sha?: string; [k: string]: unknown } | null;
  }
  const answerOf = (q: TestQueue) =>
    waitFor('the preflight answer', async () => {
      const r = await q.post('queues/preflight/result', q.Q);
      expect(r.statusCode).toBe(200);
      const view = r.json<View>();
      return view.state === 'done' ? view.result! : undefined;
    });
  const preflightBranches = (q: TestQueue) =>
    q.h.fx.bareGit('for-each-ref', '--format=%(refname:short)', 'refs/heads/railyard-merge/preflight/');

  test('a status reported through the API for its branch answers started; none answers missing with the cause; the branch is deleted', async () => {
    const q = await newQueue({}, STATUSES);
    const main = q.h.fx.tip('main');
    expectText(
      await q.post('queues/preflight/result', q.Q),
      404,
      `No preflight has run for the merge queue for main of ${q.repoLabel}; start one with POST /v1/queues/preflight.`,
    );
    const started = await q.post('queues/preflight', { ...q.Q, waitSeconds: 60 });
    expect(started.statusCode).toBe(202);
    const running = started.json<View & { startedAt: string; waitsUntil: string }>();
    expect(running).toMatchObject({ state: 'running', result: null });
    expect(Date.parse(running.waitsUntil) - Date.parse(running.startedAt)).toBe(60_000);
    // One preflight per queue: a start while it runs answers that one, with its own wait.
    const again = await q.post('queues/preflight', { ...q.Q, waitSeconds: 5 });
    expect([again.statusCode, again.json()]).toEqual([202, running]);
    // External CI sees the branch, a commit of its own on main's tip, and reports on it.
    const branch = await waitFor('the preflight branch', () =>
      Promise.resolve(preflightBranches(q) || undefined),
    );
    const sha = q.h.fx.tip(branch);
    expect(q.h.fx.bareGit('rev-parse', `${sha}^`)).toBe(q.h.fx.tip('main'));
    const report = { ...q.Q, sha, context: 'ci/test', state: 'pending' };
    expect((await q.post('reportTestStatus', report)).statusCode).toBe(200);
    expect(await answerOf(q)).toMatchObject({
      kind: 'started',
      branch,
      sha,
      required: ['ci/test'],
      started: ['ci/test'],
    });
    expect(preflightBranches(q)).toBe('');

    expect((await q.post('queues/preflight', { ...q.Q, waitSeconds: 5 })).statusCode).toBe(202);
    const missing = await answerOf(q);
    expect(missing).toMatchObject({ kind: 'missing', missing: ['ci/test'], cause: 'nothing_reported' });
    expect(missing.sentence).toContain(
      'no CI workflow is triggered on the test-branch prefix `railyard-merge/`',
    );
    expect(preflightBranches(q)).toBe('');
    expect(q.h.fx.tip('main')).toBe(main);
  });

  test("another organisation's queue is a 404; waitSeconds out of bounds is a 400 naming it; a queue running its own command has no check to wait for", async () => {
    const q = await newQueue();
    for (const path of ['queues/preflight', 'queues/preflight/result'])
      expect((await post(path, q.Q, otherKey)).statusCode).toBe(404);
    expectText(
      await q.post('queues/preflight', { ...q.Q, targetBranch: 'dev' }),
      404,
      `No merge queue exists for branch "dev" of ${q.repoLabel}.`,
    );
    const tooLong = await q.post('queues/preflight', { ...q.Q, waitSeconds: 3_600 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toMatch(/^Field 'waitSeconds' /);
    expect((await q.post('queues/preflight', q.Q)).statusCode).toBe(202);
    expect(await answerOf(q)).toEqual({
      kind: 'no_checks',
      sentence: `The queue for main names no requiredStatuses and ${q.repoLabel}'s host keeps no CI results, so the queue runs its own test command: there is no CI check to wait for.`,
    });
    expect(preflightBranches(q)).toBe('');
  });
});

describe('update ids', () => {
  test('every request without an Idempotency-Key carries its own update id, the same body too', async () => {
    const q = await newQueue({}, PAUSED);
    // A resubmission right after a fix must reach the queue as a new request (issue 11).
    const body = { ...q.Q, pr: { number: 101 }, priority: 'low' };
    await q.submit(101, { priority: 'low' });
    expect((await q.post('submitPullRequest', body)).statusCode).toBe(200);
    const restart = { ...q.Q, pr: { number: 101 } };
    for (let i = 0; i < 2; i++)
      expect((await q.post('restartTestsOnPullRequest', restart)).statusCode).toBe(200);
    // The update ids the queue workflow accepted, as its history recorded them.
    const ids = (name: string) =>
      q.acceptedUpdates().then((all) => all.filter((u) => u.name === name).map((u) => u.updateId));
    const [first, again] = await ids('submitPullRequest');
    expect(first).toMatch(/^submitPullRequest\//);
    expect(again).toMatch(/^submitPullRequest\//);
    expect(again).not.toBe(first);
    const restarts = await ids('restartTestsOnPullRequest');
    expect(restarts).toHaveLength(2);
    expect(restarts[1]).not.toBe(restarts[0]);
  });
});

test('the OpenAPI document lists every merge-queue endpoint, explains reportTestStatus and has the preflight', async () => {
  const doc = (await api.stack().app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
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
  // railyard's own preflight, beside Trunk's operations and not in their flat namespace.
  expect(doc.paths['/v1/queues/preflight']?.post?.description).toMatch(/^railyard's own operation/);
  expect(Object.keys(doc.paths)).toContain('/v1/queues/preflight/result');
});
