/**
 * The merge-queue request schemas: what real Trunk clients send is accepted (numeric-string PR numbers,
 * upper-case enums, priority names, "IMPACTS_ALL", Terraform's extra settings, unknown fields), and
 * everything else is refused with a sentence naming the field.
 */
import type { z } from 'zod';
import {
  ListPullRequestsRequest,
  ReportTestStatusRequest,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
} from '../../../api/schemas/merge-queue';
import { CreateQueueRequest, UpdateQueueRequest } from '../../../api/schemas/queue';
import { describeIssue } from '../../../api/validation-message';

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

const messageOf = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  if (r.success) throw new Error(`expected a failure, got ${JSON.stringify(r.data)}`);
  return describeIssue(r.error.issues[0]!);
};

describe('submitPullRequest', () => {
  const parse = (extra: object) =>
    SubmitPullRequestRequest.parse({ ...QUEUE, pr: { number: '12' }, ...extra });

  test.each([
    ['absent', {}, null],
    ['null', { priority: null }, null],
    ['a number', { priority: 7 }, 7],
    ['0', { priority: 0 }, 0],
    ['255', { priority: 255 }, 255],
    ['a numeric string', { priority: '42' }, 42],
    ['a name', { priority: 'high' }, 10],
    ['a name in upper case', { priority: 'URGENT' }, 0],
    ['a name in mixed case', { priority: 'Low' }, 200],
  ])('priority %s', (_name, extra, expected) => {
    expect(parse(extra).priority).toBe(expected);
  });

  test('pr.number as a string, noBatch optional, unknown fields ignored', () => {
    expect(parse({ noBatch: true, skipTheLine: true })).toEqual({
      ...QUEUE,
      pr: { number: 12 },
      priority: null,
      noBatch: true,
    });
  });

  const PRIORITY = "Field 'priority' must be an integer from 0 to 255 or one of: urgent, high, medium, low.";
  test.each([
    ['256', { priority: 256 }, PRIORITY],
    ['-1', { priority: -1 }, PRIORITY],
    ['1.5', { priority: 1.5 }, PRIORITY],
    ['an unknown name', { priority: 'critical' }, PRIORITY],
    ['a boolean', { priority: true }, PRIORITY],
    ['noBatch as a string', { noBatch: 'yes' }, "Field 'noBatch' must be a boolean."],
    [
      'commitTitle too long',
      { commitTitle: 'x'.repeat(257) },
      "Field 'commitTitle' must be at most 256 characters.",
    ],
    ['commitTitle on two lines', { commitTitle: 'a\nb' }, "Field 'commitTitle' must be one line."],
    ['commitTitle empty', { commitTitle: '  ' }, "Field 'commitTitle' must not be empty."],
    [
      'commitBody too long',
      { commitBody: 'x'.repeat(8_001) },
      "Field 'commitBody' must be at most 8000 characters.",
    ],
  ])('refuses priority %s', (_name, extra, message) => {
    expect(messageOf(SubmitPullRequestRequest, { ...QUEUE, pr: { number: 1 }, ...extra })).toBe(message);
  });

  test('commitTitle and commitBody are optional and kept (the title trimmed)', () => {
    expect(parse({ commitTitle: '  widgets: fix ', commitBody: 'Why.\n\nHow.' })).toMatchObject({
      commitTitle: 'widgets: fix',
      commitBody: 'Why.\n\nHow.',
    });
  });

  test('pr.number must be there (common PrNumber wording)', () => {
    expect(messageOf(SubmitPullRequestRequest, { ...QUEUE, pr: {} })).toBe(
      "Field 'pr.number' must be a number or a numeric string.",
    );
  });
});

describe('setImpactedTargets', () => {
  const parse = (impactedTargets: unknown) =>
    SetImpactedTargetsRequest.parse({ ...QUEUE, pr: { number: '9', sha: 'abc' }, impactedTargets })
      .impactedTargets;

  test.each([
    [
      ['//a:b', '//c:d'],
      ['//a:b', '//c:d'],
    ],
    [[], []],
    ['ALL', 'ALL'],
    ['IMPACTS_ALL', 'ALL'],
    ['all', 'ALL'],
  ])('%p → %p', (input, expected) => {
    expect(parse(input)).toEqual(expected);
  });

  test.each([
    ['SOME', 'Field \'impactedTargets\' must be a list of target names or "ALL".'],
    [5, 'Field \'impactedTargets\' must be a list of target names or "ALL".'],
    [undefined, "Field 'impactedTargets' is required."],
  ])('refuses %p', (input, message) => {
    expect(
      messageOf(SetImpactedTargetsRequest, {
        ...QUEUE,
        pr: { number: 9, sha: 'abc' },
        impactedTargets: input,
      }),
    ).toBe(message);
  });

  test('pr.sha is required', () => {
    expect(messageOf(SetImpactedTargetsRequest, { ...QUEUE, pr: { number: 9 }, impactedTargets: [] })).toBe(
      "Field 'pr.sha' is required.",
    );
  });
});

describe('createQueue', () => {
  test('enums in any case, defaults left to the queue', () => {
    expect(CreateQueueRequest.parse({ ...QUEUE, mode: 'PARALLEL', concurrency: 3 })).toEqual({
      ...QUEUE,
      mode: 'parallel',
      concurrency: 3,
    });
    expect(CreateQueueRequest.parse(QUEUE)).toEqual(QUEUE);
  });

  test("railyard's testNetwork may be set at creation", () => {
    expect(CreateQueueRequest.parse({ ...QUEUE, testNetwork: false })).toEqual({
      ...QUEUE,
      testNetwork: false,
    });
  });

  test.each([
    [{ concurrency: 0 }, "Field 'concurrency' must be at least 1."],
    [{ concurrency: 1.5 }, "Field 'concurrency' must be an integer."],
    [{ mode: 'triple' }, "Field 'mode' must be one of: single, parallel."],
    [{ testNetwork: 'false' }, "Field 'testNetwork' must be a boolean."],
    [{ testNetwork: 0 }, "Field 'testNetwork' must be a boolean."],
  ])('refuses %p', (extra, message) => {
    expect(messageOf(CreateQueueRequest, { ...QUEUE, ...extra })).toBe(message);
  });
});

describe('updateQueue', () => {
  test('every setting is optional; omitted ones stay absent', () => {
    expect(UpdateQueueRequest.parse(QUEUE)).toEqual(QUEUE);
  });

  test('enums in any case, zero where documented, Terraform extras accepted', () => {
    const parsed = UpdateQueueRequest.parse({
      ...QUEUE,
      state: 'PAUSED',
      mode: 'Parallel',
      directMergeMode: 'ALWAYS',
      optimizationMode: 'BISECTION_SKIP_REDUNDANT_TESTS',
      mergeMethod: 'MERGE_COMMIT',
      pendingFailureDepth: 0,
      testingTimeoutMinutes: 0,
      batchingMaxWaitTimeMinutes: 0,
      extensionEnabled: true,
      enqueueingLabel: 'trunk-merge-queue-submit',
      labelCommandsEnabled: false,
      stateLabelsEnabled: true,
      notReadyTimeoutHours: 24,
      testBranchConstructionMode: 'rename_temp_branch',
      somethingNew: { nested: true },
    });
    expect(parsed).toMatchObject({
      state: 'paused',
      mode: 'parallel',
      directMergeMode: 'always',
      optimizationMode: 'bisection_skip_redundant_tests',
      mergeMethod: 'merge_commit',
      pendingFailureDepth: 0,
    });
    expect(parsed).not.toHaveProperty('somethingNew');
  });

  test("railyard's GitHub settings: the landing mode in any case and a test-branch prefix", () => {
    expect(
      UpdateQueueRequest.parse({ ...QUEUE, landingMode: 'API', testBranchPrefix: 'mq/tests/' }),
    ).toMatchObject({ landingMode: 'api', testBranchPrefix: 'mq/tests/' });
  });

  test("railyard's testNetwork: a boolean, absent when not given (unchanged)", () => {
    expect(UpdateQueueRequest.parse({ ...QUEUE, testNetwork: false })).toEqual({
      ...QUEUE,
      testNetwork: false,
    });
    expect(UpdateQueueRequest.parse(QUEUE)).not.toHaveProperty('testNetwork');
  });

  test("railyard's adaptive batching: the mode in any case and a cost target, absent when not given", () => {
    expect(
      UpdateQueueRequest.parse({ ...QUEUE, batchingMode: 'Adaptive', batchingRunsPerPrTarget: 0.75 }),
    ).toEqual({ ...QUEUE, batchingMode: 'adaptive', batchingRunsPerPrTarget: 0.75 });
    const parsed = UpdateQueueRequest.parse(QUEUE);
    expect(parsed).not.toHaveProperty('batchingMode');
    expect(parsed).not.toHaveProperty('batchingRunsPerPrTarget');
  });

  test.each([
    [{ state: 'switching_modes' }, "Field 'state' must be one of: running, paused, draining."],
    [{ batchingMode: 'dynamic' }, "Field 'batchingMode' must be one of: fixed, adaptive."],
    [{ batchingRunsPerPrTarget: 0 }, "Field 'batchingRunsPerPrTarget' must be at least 0.05."],
    [{ batchingRunsPerPrTarget: 11 }, "Field 'batchingRunsPerPrTarget' must be at most 10."],
    [{ batchingRunsPerPrTarget: '0.5' }, "Field 'batchingRunsPerPrTarget' must be a number."],
    [{ landingMode: 'rebase' }, "Field 'landingMode' must be one of: push, api."],
    [
      { testBranchPrefix: 'trunk-merge' },
      'Field \'testBranchPrefix\' must be a branch prefix ending in "/", such as trunk-merge/ (letters, digits, ".", "_", "-").',
    ],
    [
      { testBranchPrefix: '../main/' },
      'Field \'testBranchPrefix\' must be a branch prefix ending in "/", such as trunk-merge/ (letters, digits, ".", "_", "-").',
    ],
    [
      { testBranchPrefix: 'refs/heads/' },
      'Field \'testBranchPrefix\' must be a branch prefix ending in "/", such as trunk-merge/ (letters, digits, ".", "_", "-").',
    ],
    [{ concurrency: 0 }, "Field 'concurrency' must be at least 1."],
    [{ bisectionConcurrency: 0 }, "Field 'bisectionConcurrency' must be at least 1."],
    [{ batchingMinSize: 0 }, "Field 'batchingMinSize' must be at least 1."],
    [{ pendingFailureDepth: -1 }, "Field 'pendingFailureDepth' must be at least 0."],
    [{ testingTimeoutMinutes: -5 }, "Field 'testingTimeoutMinutes' must be at least 0."],
    [{ batch: 'true' }, "Field 'batch' must be a boolean."],
    [{ testNetwork: 'off' }, "Field 'testNetwork' must be a boolean."],
    [{ testNetwork: null }, "Field 'testNetwork' must be a boolean."],
    [{ stalledCheckGraceMinutes: -1 }, "Field 'stalledCheckGraceMinutes' must be at least 0."],
    [{ stalledCheckGraceMinutes: 1_441 }, "Field 'stalledCheckGraceMinutes' must be at most 1440."],
    [{ stalledCheckGraceMinutes: 2.5 }, "Field 'stalledCheckGraceMinutes' must be an integer."],
    [{ stalledCheckGraceMinutes: '5' }, "Field 'stalledCheckGraceMinutes' must be a number."],
    [{ flakyRetries: 4 }, "Field 'flakyRetries' must be at most 3."],
    [{ flakyRetries: -1 }, "Field 'flakyRetries' must be at least 0."],
    [{ flakyRetries: 1.5 }, "Field 'flakyRetries' must be an integer."],
    [{ requiredStatuses: 'ci' }, "Field 'requiredStatuses' must be an array."],
    [{ requiredStatuses: [''] }, "Field 'requiredStatuses[0]' must be at least 1 characters long."],
    [
      { requiredStatuses: ['ci'], deleteRequiredStatuses: true },
      "Field 'deleteRequiredStatuses' cannot be true when requiredStatuses is given.",
    ],
  ])('refuses %p', (extra, message) => {
    expect(messageOf(UpdateQueueRequest, { ...QUEUE, ...extra })).toBe(message);
  });
});

describe('listPullRequests', () => {
  test('take defaults to 50, state in any case', () => {
    expect(ListPullRequestsRequest.parse({ ...QUEUE, state: 'MERGED' })).toEqual({
      ...QUEUE,
      state: 'merged',
      take: 50,
    });
  });

  test.each([
    [{ take: 0 }, "Field 'take' must be at least 1."],
    [{ take: 101 }, "Field 'take' must be at most 100."],
    [{ since: 'yesterday' }, "Field 'since' must be an ISO-8601 date-time."],
    [
      { state: 'done' },
      `Field 'state' must be one of: not_ready, pending, testing, tests_passed, pending_failure, merged, failed, cancelled.`,
    ],
  ])('refuses %p', (extra, message) => {
    expect(messageOf(ListPullRequestsRequest, { ...QUEUE, ...extra })).toBe(message);
  });

  test('since accepts offsets', () => {
    expect(ListPullRequestsRequest.parse({ ...QUEUE, since: '2026-01-02T03:04:05+02:00' }).since).toBe(
      '2026-01-02T03:04:05+02:00',
    );
  });
});

describe('reportTestStatus', () => {
  test('state in any case; url and description optional', () => {
    expect(
      ReportTestStatusRequest.parse({ ...QUEUE, sha: 'abc', context: 'ci/test', state: 'SUCCESS' }),
    ).toEqual({
      ...QUEUE,
      sha: 'abc',
      context: 'ci/test',
      state: 'success',
    });
  });

  test.each([
    [{ state: 'passed' }, "Field 'state' must be one of: pending, success, failure, error."],
    [{ context: '' }, "Field 'context' must be at least 1 characters long."],
    [{ sha: undefined }, "Field 'sha' is required."],
  ])('refuses %p', (extra, message) => {
    expect(
      messageOf(ReportTestStatusRequest, { ...QUEUE, sha: 'abc', context: 'ci', state: 'pending', ...extra }),
    ).toBe(message);
  });
});
