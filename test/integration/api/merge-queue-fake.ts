/**
 * A stateful in-memory MergeQueueService for route tests: queues per (organisation, repository,
 * branch), submissions per PR, test runs seeded by the test. It keeps the contract the real service
 * keeps (reads null when absent, changes throw the AppErrors the queue workflow's rejections map to)
 * and records every call with its update id. PRs are ready at once: a submission is `pending`. A new
 * queue has the real defaults: the engine's config (engine/config.ts) and the queue workflow's runner
 * settings (DEFAULT_RUNNER, workflows/queue/carried.ts), imported, not restated.
 */
/* eslint-disable @typescript-eslint/require-await -- synchronous bodies; `async` turns their throws into
   rejections, as the real service's are. */
import type { Organisation } from '../../../stores/api-keys';
import { badRequest, notFound } from '../../../api/errors';
import {
  queueExists,
  queueNotFound,
  type Change,
  type MergeQueueService,
  type QueueAddress,
} from '../../../api/routes/merge-queue/service';
import type {
  ReportTestStatusRequest,
  SubmittedPullRequest,
  TestingDetails,
} from '../../../api/schemas/merge-queue';
import type { CreateQueueRequest, QueueSettings } from '../../../api/schemas/queue';
import { DEFAULT_PRIORITY, priorityName, queueConfig } from '../../../engine';
import { DEFAULT_RUNNER } from '../../../workflows/queue/carried';

interface FakeQueue {
  settings: QueueSettings;
  /** Latest submission per PR number, in submission order. */
  prs: Map<number, SubmittedPullRequest & { seq: number; restarts: number; targets?: string[] | 'ALL' }>;
  runs: Map<string, TestingDetails>;
  statuses: ReportTestStatusRequest[];
}

export interface RecordedCall {
  method: keyof MergeQueueService;
  org: string;
  updateId?: string;
  request: unknown;
}

const label = (k: QueueAddress) => `${k.repo.host}/${k.repo.owner}/${k.repo.name} branch "${k.targetBranch}"`;
const idOf = (org: Organisation, k: QueueAddress) => `${org.id}|${label(k)}`;
const ACTIVE = new Set(['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure']);

/** A new queue's settings as the real getQueue reports them (api/temporal/wire.ts, queueSettings). */
function newQueueSettings(request: CreateQueueRequest): QueueSettings {
  const { speculationThreshold: _engineOnly, ...config } = queueConfig({
    ...(request.mode === undefined ? {} : { mode: request.mode }),
    ...(request.concurrency === undefined ? {} : { concurrency: request.concurrency }),
  });
  const { requiredStatuses, landingMode, testBranchPrefix, testNetwork, ...runner } = DEFAULT_RUNNER;
  return {
    state: 'running',
    branch: request.targetBranch,
    ...config,
    ...runner,
    requiredStatuses: requiredStatuses ?? [],
    allowedBotSubmitters: [],
    batchingRules: [],
    landingMode: landingMode ?? 'push',
    testBranchPrefix: testBranchPrefix ?? null,
    testNetwork: request.testNetwork ?? testNetwork ?? true,
  };
}

export function createFakeMergeQueue(clock: () => number = Date.now) {
  const queues = new Map<string, FakeQueue>();
  const calls: RecordedCall[] = [];
  let seq = 0;

  const record = (method: keyof MergeQueueService, who: Organisation | Change, request: unknown) => {
    const change = 'updateId' in who ? who : undefined;
    const org = change ? change.org : (who as Organisation);
    calls.push({ method, org: org.slug, ...(change ? { updateId: change.updateId } : {}), request });
    return org;
  };
  const queueOf = (org: Organisation, key: QueueAddress) => {
    const queue = queues.get(idOf(org, key));
    if (!queue) throw queueNotFound(key);
    return queue;
  };
  const inQueue = (queue: FakeQueue, key: QueueAddress & { pr: { number: number } }) => {
    const pr = queue.prs.get(key.pr.number);
    if (!pr || !ACTIVE.has(pr.state))
      throw notFound(`Pull request #${key.pr.number} is not in the merge queue for ${label(key)}.`);
    return pr;
  };
  const now = () => new Date(clock()).toISOString();

  const service: MergeQueueService = {
    async createQueue(who, request) {
      const org = record('createQueue', who, request);
      if (queues.has(idOf(org, request))) throw queueExists(request);
      queues.set(idOf(org, request), {
        settings: newQueueSettings(request),
        prs: new Map(),
        runs: new Map(),
        statuses: [],
      });
    },

    async getQueue(who, key) {
      const org = record('getQueue', who, key);
      const queue = queues.get(idOf(org, key));
      if (!queue) return null;
      const line = [...queue.prs.values()]
        .filter((p) => ACTIVE.has(p.state) && p.state !== 'not_ready')
        .sort((a, b) => a.priorityValue - b.priorityValue || a.seq - b.seq);
      return {
        ...queue.settings,
        enqueuedPullRequests: line.map(
          ({
            readiness: _r,
            forceEnqueued: _f,
            isCurrentlySubmittedToQueue: _i,
            verifiedByTestRun: _v,
            seq: _s,
            restarts: _x,
            targets: _t,
            ...entry
          }) => entry,
        ),
      };
    },

    async updateQueue(change, request) {
      record('updateQueue', change, request);
      const queue = queueOf(change.org, request);
      const {
        repo: _repo,
        targetBranch: _branch,
        requiredStatuses,
        deleteRequiredStatuses,
        ...rest
      } = request;
      for (const [k, v] of Object.entries(rest)) {
        if (v !== undefined && k in queue.settings) (queue.settings as Record<string, unknown>)[k] = v;
      }
      if (requiredStatuses && requiredStatuses.length > 0) queue.settings.requiredStatuses = requiredStatuses;
      if (deleteRequiredStatuses) queue.settings.requiredStatuses = [];
      return { ...queue.settings };
    },

    async deleteQueue(change, key) {
      record('deleteQueue', change, key);
      const queue = queueOf(change.org, key);
      const n = [...queue.prs.values()].filter((p) => ACTIVE.has(p.state)).length;
      if (n > 0)
        throw badRequest(
          `The merge queue for ${label(key)} still holds ${n} pull request${n > 1 ? 's' : ''}; cancel them before deleting it.`,
        );
      queues.delete(idOf(change.org, key));
    },

    async submitPullRequest(change, request) {
      record('submitPullRequest', change, request);
      const queue = queueOf(change.org, request);
      const priority = request.priority ?? DEFAULT_PRIORITY;
      const current = queue.prs.get(request.pr.number);
      if (current && ACTIVE.has(current.state)) {
        Object.assign(current, {
          priorityValue: priority,
          priorityName: priorityName(priority),
          skipTheLine: priority === 0,
          noBatch: request.noBatch ?? false,
        });
        return;
      }
      queue.prs.set(request.pr.number, {
        id: `submission-${++seq}`,
        seq,
        restarts: 0,
        state: 'pending',
        stateChangedAt: now(),
        priorityValue: priority,
        priorityName: priorityName(priority),
        usedDefaultPriorityName: priorityName(DEFAULT_PRIORITY),
        skipTheLine: priority === 0,
        noBatch: request.noBatch ?? false,
        prNumber: request.pr.number,
        prTitle: `PR ${request.pr.number}`,
        prSha: `sha-${request.pr.number}`,
        prBaseBranch: request.targetBranch,
        prAuthor: 'octocat',
        verifiedByTestRun: null,
        reason: 'MERGE_ITEM_NOW_READY',
        reasonText: 'Queued: it is ready and waits for a test slot.',
        testRuns: [],
        decidedByTestRun: null,
        readiness: {
          hasImpactedTargets: false,
          requiresImpactedTargets: queue.settings.mode === 'parallel',
          doesBaseBranchMatch: true,
          gitHubMergeability: 'mergeable',
        },
        forceEnqueued: false,
        isCurrentlySubmittedToQueue: true,
      });
    },

    async cancelPullRequest(change, request) {
      record('cancelPullRequest', change, request);
      const pr = inQueue(queueOf(change.org, request), request);
      Object.assign(pr, { state: 'cancelled', stateChangedAt: now(), isCurrentlySubmittedToQueue: false });
    },

    async restartTestsOnPullRequest(change, request) {
      record('restartTestsOnPullRequest', change, request);
      inQueue(queueOf(change.org, request), request).restarts += 1;
    },

    async setImpactedTargets(change, request) {
      record('setImpactedTargets', change, request);
      const pr = queueOf(change.org, request).prs.get(request.pr.number);
      if (pr)
        Object.assign(pr, {
          targets: request.impactedTargets,
          readiness: { ...pr.readiness, hasImpactedTargets: true },
        });
    },

    async getSubmittedPullRequest(who, request) {
      const org = record('getSubmittedPullRequest', who, request);
      const pr = queues.get(idOf(org, request))?.prs.get(request.pr.number);
      if (!pr) return null;
      const { seq: _s, restarts: _r, targets: _t, ...wire } = pr;
      return wire;
    },

    async listPullRequests(who, request) {
      const org = record('listPullRequests', who, request);
      const all = [...queueOf(org, request).prs.values()]
        .filter((p) => request.state === undefined || p.state === request.state)
        .sort((a, b) => b.seq - a.seq);
      const from = request.cursor ? Number(request.cursor) : 0;
      const page = all.slice(from, from + request.take);
      return {
        pullRequests: page.map(
          ({
            readiness: _r,
            forceEnqueued: _f,
            isCurrentlySubmittedToQueue: _i,
            seq: _s,
            restarts: _x,
            targets: _t,
            ...entry
          }) => entry,
        ),
        ...(from + request.take < all.length ? { nextCursor: String(from + request.take) } : {}),
      };
    },

    async getTestingDetails(who, request) {
      const org = record('getTestingDetails', who, request);
      return queueOf(org, request).runs.get(request.testRunId) ?? null;
    },

    async getTestRunsInProgress(who, key) {
      const org = record('getTestRunsInProgress', who, key);
      const runs = [...queueOf(org, key).runs.entries()];
      return {
        testRuns: runs
          .filter(([, run]) => run.status === 'in_progress')
          .map(([testRunId, run]) => ({ testRunId, ...run })),
      };
    },

    async reportTestStatus(who, request) {
      const org = record('reportTestStatus', who, request);
      queueOf(org, request).statuses.push(request);
    },
  };

  return {
    service,
    calls,
    /** The fake's state of one queue, for assertions and seeding test runs. */
    queue: (org: Organisation, key: QueueAddress) => queues.get(idOf(org, key)),
  };
}
