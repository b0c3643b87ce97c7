/**
 * The pure parts of the merge-queue API: wire translations, update ids, listing cursors and filters
 * (the visibility query itself: test/unit/queue-client/visibility.test.ts).
 */
import { decodeCursor, encodeCursor, matchesFilter } from '../../../api/temporal/listing';
import { freshUpdateId, requestHash } from '../../../api/routes/merge-queue/update-id';
import * as wire from '../../../api/temporal/wire';
import { PullRequestEntry, SubmittedPullRequest, TestingDetails } from '../../../api/schemas/merge-queue';
import { CreateQueueRequest, UpdateQueueRequest } from '../../../api/schemas/queue';
import type { PullRequestRecord, QueueSettingsSnapshot, TestRunDetails } from '../../../contract';

const Q = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };
const ORG = { id: 'org-1', slug: 'acme' };

describe('updateQueueInput', () => {
  const input = (body: object) => wire.updateQueueInput(UpdateQueueRequest.parse({ ...Q, ...body }));

  test.each([
    ['nothing', {}, { config: {} }],
    [
      'engine settings',
      { concurrency: 3, mode: 'PARALLEL' },
      { config: { concurrency: 3, mode: 'parallel' } },
    ],
    ['the state', { state: 'Draining' }, { config: {}, state: 'draining' }],
    [
      'runner settings',
      { commentsEnabled: false, requiredStatuses: ['ci'] },
      { config: {}, runner: { commentsEnabled: false, requiredStatuses: ['ci'] } },
    ],
    ['an empty requiredStatuses (ignored, as in Trunk v1)', { requiredStatuses: [] }, { config: {} }],
    [
      'deleteRequiredStatuses',
      { deleteRequiredStatuses: true },
      { config: {}, deleteRequiredStatuses: true },
    ],
    [
      'Terraform extras are stored with the queue',
      { extensionEnabled: true, notReadyTimeoutHours: 24 },
      { config: {}, runner: { extensionEnabled: true, notReadyTimeoutHours: 24 } },
    ],
    ["railyard's testNetwork off", { testNetwork: false }, { config: {}, runner: { testNetwork: false } }],
    ["railyard's testNetwork on", { testNetwork: true }, { config: {}, runner: { testNetwork: true } }],
    [
      "railyard's stalled-check grace (0: off)",
      { stalledCheckGraceMinutes: 0 },
      { config: {}, runner: { stalledCheckGraceMinutes: 0 } },
    ],
    [
      "railyard's flaky retries: an engine setting (0: off)",
      { flakyRetries: 0 },
      { config: { flakyRetries: 0 } },
    ],
    [
      "railyard's adaptive batching: engine settings",
      { batch: true, batchingMode: 'ADAPTIVE', batchingRunsPerPrTarget: 0.6 },
      { config: { batch: true, batchingMode: 'adaptive', batchingRunsPerPrTarget: 0.6 } },
    ],
  ])('%s', (_name, body, expected) => {
    expect(input(body)).toEqual(expected);
  });
});

describe('testNetwork', () => {
  test('createQueue passes it to the queue as a runner setting, only when given', () => {
    const create = (body: object) =>
      wire.queueWorkflowInput(ORG, CreateQueueRequest.parse({ ...Q, ...body }));
    expect(create({ testNetwork: false })).toEqual({
      key: { organisationId: 'org-1', ...Q },
      config: {},
      runner: { testNetwork: false },
    });
    expect(create({})).not.toHaveProperty('runner');
  });

  test('getQueue answers true for a queue that never set it (queues older than the setting)', () => {
    const { testNetwork: _unset, ...settings } = SETTINGS;
    expect(wire.queueSettings(settings).testNetwork).toBe(true);
    expect(wire.queueSettings({ ...settings, testNetwork: false }).testNetwork).toBe(false);
  });
});

describe('adaptive batching settings', () => {
  test('getQueue answers fixed and the default target for a queue that never set them', () => {
    expect(wire.queueSettings(SETTINGS)).toMatchObject({
      batchingMode: 'fixed',
      batchingRunsPerPrTarget: 0.5,
    });
    expect(
      wire.queueSettings({ ...SETTINGS, batchingMode: 'adaptive', batchingRunsPerPrTarget: 0.8 }),
    ).toMatchObject({ batchingMode: 'adaptive', batchingRunsPerPrTarget: 0.8 });
  });
});

test('getQueue answers the default flaky retries (1) for a queue that never set them, else its own', () => {
  expect(wire.queueSettings(SETTINGS).flakyRetries).toBe(1);
  expect(wire.queueSettings({ ...SETTINGS, flakyRetries: 3 }).flakyRetries).toBe(3);
});

test("getQueue shows an adaptive queue's plan now (railyard's extension), null for any other queue", () => {
  expect(wire.queueSettings(SETTINGS).adaptivePlan).toBeNull();
  expect(
    wire.queueSettings({ ...SETTINGS, adaptivePlan: { size: 4, depth: 2, failureRate: 0.0512345 } })
      .adaptivePlan,
  ).toEqual({ batchSize: 4, depth: 2, failureRate: 0.0512 });
});

test('getQueue answers the default stalled-check grace (5) for a queue that never set it, else its own', () => {
  expect(wire.queueSettings(SETTINGS).stalledCheckGraceMinutes).toBe(5);
  expect(wire.queueSettings({ ...SETTINGS, stalledCheckGraceMinutes: 0 }).stalledCheckGraceMinutes).toBe(0);
});

const SETTINGS: QueueSettingsSnapshot = {
  state: 'running',
  branch: 'main',
  mode: 'single',
  concurrency: 1,
  bisectionConcurrency: 1,
  testingTimeoutMinutes: 0,
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 0,
  batchingMinSize: 1,
  directMergeMode: 'off',
  optimizationMode: 'off',
  mergeMethod: 'squash',
  requiredStatuses: null,
  createPrsForTestingBranches: false,
  commentsEnabled: false,
  commandsEnabled: false,
  statusCheckEnabled: false,
  extensionEnabled: false,
  enqueueingLabel: 'railyard-merge-queue-submit',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
  notReadyTimeoutHours: 24,
  testBranchConstructionMode: 'push_new_branch_from_temp',
  testNetwork: true,
};

const RECORD: PullRequestRecord = {
  id: 'sub-1',
  prNumber: 7,
  state: 'not_ready',
  stateChangedAt: Date.parse('2026-03-01T00:00:00Z'),
  reason: 'API_REQUESTED',
  details: null,
  skipTheLine: false,
  isCurrentlySubmittedToQueue: true,
  verifiedByTestRun: null,
  timeline: [],
};

const LINKS = { testRunLogUrl: (id: string) => `http://api.test/v1/testRuns/${id}/log` };

test('a record without details answers defaults in the compat shape', () => {
  const pr = SubmittedPullRequest.strict().parse(wire.submittedPullRequest(RECORD, LINKS, 'main'));
  expect(pr).toMatchObject({
    prNumber: 7,
    stateChangedAt: '2026-03-01T00:00:00.000Z',
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    prTitle: '',
    readiness: { gitHubMergeability: 'unspecified' },
    forceEnqueued: false,
  });
});

test("a bisection's culprit answers the runs that convicted it (railyard's extension); other PRs do not", () => {
  const failed = { at: RECORD.stateChangedAt, from: 'testing' as const, to: 'failed' as const };
  const culprit: PullRequestRecord = {
    ...RECORD,
    state: 'failed',
    reason: 'TEST_RUN_COMMAND_FAILED',
    isCurrentlySubmittedToQueue: false,
    convictedBy: ['batch', 'half', 'quarter'],
    timeline: [
      {
        ...failed,
        reason: 'TEST_RUN_COMMAND_FAILED',
        testRunId: 'quarter',
        convictedBy: ['batch', 'half', 'quarter'],
      },
    ],
  };
  const listed = PullRequestEntry.strict().parse(wire.pullRequestEntry(culprit, LINKS, 'main'));
  expect(listed).toMatchObject({ convictedBy: ['batch', 'half', 'quarter'], decidedByTestRun: 'quarter' });
  const submitted = SubmittedPullRequest.strict().parse(wire.submittedPullRequest(culprit, LINKS, 'main'));
  expect(submitted.convictedBy).toEqual(['batch', 'half', 'quarter']);
  expect('convictedBy' in wire.submittedPullRequest(RECORD, LINKS, 'main')).toBe(false);
});

test('testing details: upper-case status states, PR urls, "ALL" as a one-item list', () => {
  const run: TestRunDetails = {
    testRunId: 'r1',
    testBranch: 'railyard-merge/pr-7/r1',
    testBranchSha: null,
    createdAt: 0,
    status: 'in_progress',
    bisection: false,
    prs: [{ pr: 7, title: 'Seven' }],
    dependentPrs: [5],
    requiredStatuses: ['ci'],
    requiredStatusesSource: null,
    statuses: [{ sha: 's', context: 'ci', state: 'failure', url: null, description: null }],
    impactedTargets: 'ALL',
    impactedTargetsForTestedPrs: null,
  };
  const details = TestingDetails.strict().parse(wire.testingDetails(run, { ...Q, testRunId: 'r1' }));
  expect(details).toEqual({
    requiredStatuses: ['ci'],
    testBranch: 'railyard-merge/pr-7/r1',
    testBranchSha: '',
    createdAt: '1970-01-01T00:00:00.000Z',
    status: 'in_progress',
    checkSuites: [],
    statusChecks: [{ context: 'ci', state: 'FAILURE' }],
    testedPullRequests: [{ prNumber: 7, prUrl: 'https://github.com/acme/app/pull/7', title: 'Seven' }],
    impactedTargets: ['ALL'],
    dependentPrs: [5],
  });
  // The local git host's repositories have no web page: no `https://local/…` link.
  const local = wire.testingDetails(run, { ...Q, repo: { ...Q.repo, host: 'local' }, testRunId: 'r1' });
  expect(local.testedPullRequests).toEqual([{ prNumber: 7, title: 'Seven' }]);
});

describe('update ids and request hashes', () => {
  test('every request gets its own update id, named after its endpoint', () => {
    const a = freshUpdateId('submitPullRequest');
    expect(a).toMatch(/^submitPullRequest\/[0-9a-f-]{36}$/);
    expect(freshUpdateId('submitPullRequest')).not.toBe(a);
  });

  test('key order and undefined members do not change the hash; the endpoint and values do', () => {
    const a = requestHash('submitPullRequest', { pr: { number: 1 }, priority: 0, noBatch: undefined });
    expect(requestHash('submitPullRequest', { priority: 0, pr: { number: 1 } })).toEqual(a);
    expect(requestHash('submitPullRequest', { priority: 1, pr: { number: 1 } })).not.toEqual(a);
    expect(requestHash('cancelPullRequest', { priority: 0, pr: { number: 1 } })).not.toEqual(a);
    expect(a).toHaveLength(32);
  });
});

describe('listing', () => {
  test('a cursor round-trips for its own query only', () => {
    const token = Buffer.from('{"StartTime":"2026"}');
    const cursor = encodeCursor('q1', token);
    expect(decodeCursor('q1', cursor)).toEqual(token);
    for (const bad of [`${cursor}x`, cursor.replace(/^./, 'A'), 'abc', '.abc', ''])
      expect(() => decodeCursor('q1', bad)).toThrow('is not a cursor this server issued');
    expect(() => decodeCursor('q2', cursor)).toThrow('is not a cursor this server issued');
  });

  test.each([
    ['no filter', { state: 'testing' }, {}, true],
    ['state matches', { state: 'merged' }, { state: 'merged' }, true],
    ['state differs', { state: 'failed' }, { state: 'merged' }, false],
    [
      'concluded inside [since, until)',
      { state: 'merged' },
      { since: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' },
      true,
    ],
    [
      'concluded at until',
      { state: 'merged', stateChangedAt: Date.parse('2026-03-02T00:00:00Z') },
      { until: '2026-03-02T00:00:00Z' },
      false,
    ],
    ['concluded before since', { state: 'failed' }, { since: '2026-03-01T12:00:00Z' }, false],
    ['not concluded', { state: 'testing' }, { since: '2026-01-01T00:00:00Z' }, false],
  ] as const)('%s', (_name, record, filter, expected) => {
    const r = { ...RECORD, stateChangedAt: Date.parse('2026-03-01T06:00:00Z'), ...record };
    expect(matchesFilter(r, { ...Q, take: 50, ...filter })).toBe(expected);
  });
});
