/**
 * The Temporal adapter's translations (merge-queue-service.ts) between the Trunk wire shapes
 * (api/schemas) and the queue and PR workflows' message types. Pure functions: no Temporal call here,
 * so they are tested without a server.
 *
 * Rules:
 * - Times travel as epoch milliseconds inside railyard and as ISO-8601 strings on the wire.
 * - A PR record written before the queue knew the PR's details answers empty strings and the defaults
 *   (medium priority, unknown mergeability) rather than failing the read.
 * - updateQueue ignores an empty `requiredStatuses` (Trunk v1 does; `deleteRequiredStatuses` clears).
 * - Impacted targets `"ALL"` are shown as `["ALL"]` where Trunk's schema only has a list.
 */
import type { Organisation } from '../../stores/api-keys';
import {
  DEFAULT_BATCHING_MODE,
  DEFAULT_FLAKY_RETRIES,
  DEFAULT_PRIORITY,
  DEFAULT_RUNS_PER_PR_TARGET,
  DEFAULT_STALL_GRACE_MINUTES,
  priorityName,
  type QueueConfigPatch,
} from '../../engine';
import { stalledChecksSentence } from '../../contract';
import type {
  CommitStatusReport,
  PullRequestRecord,
  QueuedPullRequest,
  QueueSettingsSnapshot,
  QueueSnapshot,
  QueueWorkflowInput,
  Readiness,
  RunnerSettings,
  SubmitInput,
  TestRunDetails,
  UpdateQueueInput,
} from '../../contract';
import type {
  PullRequestEntry,
  ReportTestStatusRequest,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
  TestingDetails,
  TestingDetailsRequest,
} from '../schemas/merge-queue';
import type {
  CreateQueueRequest,
  EnqueuedPullRequest,
  QueueSettings,
  QueueView,
  UpdateQueueRequest,
} from '../schemas/queue';

import { explanationOf, type RecordLinks } from './record-wire';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export function queueWorkflowInput(org: Organisation, request: CreateQueueRequest): QueueWorkflowInput {
  const config: QueueConfigPatch = {};
  if (request.mode !== undefined) config.mode = request.mode;
  if (request.concurrency !== undefined) config.concurrency = request.concurrency;
  return {
    key: { organisationId: org.id, repo: request.repo, targetBranch: request.targetBranch },
    config,
    ...(request.testNetwork !== undefined ? { runner: { testNetwork: request.testNetwork } } : {}),
  };
}

export function queueSettings(s: QueueSettingsSnapshot): QueueSettings {
  return {
    state: s.state,
    branch: s.branch,
    concurrency: s.concurrency,
    testingTimeoutMinutes: s.testingTimeoutMinutes,
    mode: s.mode,
    canOptimisticallyMerge: s.canOptimisticallyMerge,
    pendingFailureDepth: s.pendingFailureDepth,
    batch: s.batch,
    batchingMaxWaitTimeMinutes: s.batchingMaxWaitTimeMinutes,
    batchingMinSize: s.batchingMinSize,
    createPrsForTestingBranches: s.createPrsForTestingBranches,
    commentsEnabled: s.commentsEnabled,
    commandsEnabled: s.commandsEnabled,
    statusCheckEnabled: s.statusCheckEnabled,
    extensionEnabled: s.extensionEnabled,
    enqueueingLabel: s.enqueueingLabel,
    labelCommandsEnabled: s.labelCommandsEnabled,
    stateLabelsEnabled: s.stateLabelsEnabled,
    notReadyTimeoutHours: s.notReadyTimeoutHours,
    testBranchConstructionMode: s.testBranchConstructionMode,
    bisectionConcurrency: s.bisectionConcurrency,
    // [] rather than null when none are set: Trunk's schema types it as a list (docs/api-compat.md).
    requiredStatuses: s.requiredStatuses ?? [],
    allowedBotSubmitters: [],
    batchingRules: [],
    directMergeMode: s.directMergeMode,
    optimizationMode: s.optimizationMode,
    mergeMethod: s.mergeMethod,
    landingMode: s.landingMode ?? 'push',
    testBranchPrefix: s.testBranchPrefix ?? null,
    // Absent in queues created before the setting existed: they ran with the network.
    testNetwork: s.testNetwork ?? true,
    // Absent from workers older than the setting, and in snapshots projected before it: fixed.
    batchingMode: s.batchingMode ?? DEFAULT_BATCHING_MODE,
    batchingRunsPerPrTarget: s.batchingRunsPerPrTarget ?? DEFAULT_RUNS_PER_PR_TARGET,
    // Absent until a queue sets it: the default.
    stalledCheckGraceMinutes: s.stalledCheckGraceMinutes ?? DEFAULT_STALL_GRACE_MINUTES,
    // Absent until a queue sets it (engine/config.ts): the default.
    flakyRetries: s.flakyRetries ?? DEFAULT_FLAKY_RETRIES,
    // An adaptive queue's plan now; null for a fixed queue and in snapshots from before it was shown.
    adaptivePlan: s.adaptivePlan
      ? {
          batchSize: s.adaptivePlan.size,
          depth: s.adaptivePlan.depth,
          failureRate: Math.round(s.adaptivePlan.failureRate * 10_000) / 10_000,
        }
      : null,
  };
}

export function enqueuedPullRequest(q: QueuedPullRequest): EnqueuedPullRequest {
  return {
    id: q.id,
    state: q.state,
    stateChangedAt: iso(q.stateChangedAt),
    priorityValue: q.priorityValue,
    priorityName: q.priorityName,
    usedDefaultPriorityName: q.usedDefaultPriorityName,
    skipTheLine: q.skipTheLine,
    noBatch: q.noBatch,
    prNumber: q.pr,
    prTitle: q.title,
    prSha: q.headSha,
    prBaseBranch: q.baseBranch,
    prAuthor: q.author,
  };
}

export function queueView(snapshot: QueueSnapshot): QueueView {
  return {
    ...queueSettings(snapshot.settings),
    enqueuedPullRequests: snapshot.enqueued.map(enqueuedPullRequest),
  };
}

export function updateQueueInput(request: UpdateQueueRequest): UpdateQueueInput {
  const configKeys = [
    'mode',
    'concurrency',
    'bisectionConcurrency',
    'batch',
    'batchingMinSize',
    'batchingMaxWaitTimeMinutes',
    'optimizationMode',
    'canOptimisticallyMerge',
    'pendingFailureDepth',
    'directMergeMode',
    'testingTimeoutMinutes',
    'mergeMethod',
    'batchingMode',
    'batchingRunsPerPrTarget',
    'flakyRetries',
  ] as const satisfies readonly (keyof QueueConfigPatch & keyof UpdateQueueRequest)[];
  const runnerKeys = [
    'createPrsForTestingBranches',
    'commentsEnabled',
    'commandsEnabled',
    'statusCheckEnabled',
    'extensionEnabled',
    'enqueueingLabel',
    'labelCommandsEnabled',
    'stateLabelsEnabled',
    'notReadyTimeoutHours',
    'testBranchConstructionMode',
    'landingMode',
    'testBranchPrefix',
    'testNetwork',
    'stalledCheckGraceMinutes',
  ] as const satisfies readonly (keyof RunnerSettings & keyof UpdateQueueRequest)[];
  const config = definedOf(request, configKeys) as QueueConfigPatch;
  const runner = definedOf(request, runnerKeys) as Partial<RunnerSettings>;
  if (request.requiredStatuses !== undefined && request.requiredStatuses.length > 0)
    runner.requiredStatuses = request.requiredStatuses;
  return {
    config,
    ...(request.state !== undefined ? { state: request.state } : {}),
    ...(Object.keys(runner).length > 0 ? { runner } : {}),
    ...(request.deleteRequiredStatuses === true ? { deleteRequiredStatuses: true } : {}),
  };
}

function definedOf<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

export function submitInput(request: SubmitPullRequestRequest): SubmitInput {
  const { commitTitle: title, commitBody: body } = request;
  return {
    pr: request.pr.number,
    priority: request.priority,
    noBatch: request.noBatch ?? false,
    ...(title !== undefined || body !== undefined
      ? {
          commitMessage: {
            ...(title !== undefined ? { title } : {}),
            ...(body !== undefined ? { body } : {}),
          },
        }
      : {}),
  };
}

export function commitStatusReport(request: ReportTestStatusRequest): CommitStatusReport {
  return {
    sha: request.sha,
    context: request.context,
    state: request.state,
    url: request.url ?? null,
    description: request.description ?? null,
  };
}

const UNKNOWN_READINESS: Readiness = {
  hasImpactedTargets: false,
  requiresImpactedTargets: false,
  doesBaseBranchMatch: false,
  gitHubMergeability: 'unspecified',
};

export function pullRequestEntry(r: PullRequestRecord, links: RecordLinks, branch: string): PullRequestEntry {
  const d = r.details;
  const defaultName = priorityName(DEFAULT_PRIORITY);
  return {
    id: r.id,
    state: r.state,
    stateChangedAt: iso(r.stateChangedAt),
    priorityValue: d?.priorityValue ?? DEFAULT_PRIORITY,
    priorityName: d?.priorityName ?? defaultName,
    usedDefaultPriorityName: d?.usedDefaultPriorityName ?? defaultName,
    skipTheLine: r.skipTheLine,
    noBatch: d?.noBatch ?? false,
    prNumber: r.prNumber,
    prTitle: d?.title ?? '',
    prSha: d?.headSha ?? '',
    prBaseBranch: d?.baseBranch ?? '',
    prAuthor: d?.author ?? '',
    verifiedByTestRun: r.verifiedByTestRun,
    ...explanationOf(r, links, branch),
  };
}

export function submittedPullRequest(
  r: PullRequestRecord,
  links: RecordLinks,
  branch: string,
): SubmittedPullRequest {
  return {
    ...pullRequestEntry(r, links, branch),
    readiness: r.details?.readiness ?? UNKNOWN_READINESS,
    // railyard has no admin force-enqueue; every PR is admitted by its readiness.
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: r.isCurrentlySubmittedToQueue,
  };
}

const targetList = (t: string[] | 'ALL' | null) => (t === null ? undefined : t === 'ALL' ? ['ALL'] : t);

/**
 * A PR's page on its host. Only a host name with a dot is a web host: the local git host's names
 * (`local` in the demo) have no page, so the field is left out rather than answered as a dead link.
 */
export function pullRequestUrl(repo: { host: string; owner: string; name: string }, pr: number) {
  return repo.host.includes('.') ? `https://${repo.host}/${repo.owner}/${repo.name}/pull/${pr}` : undefined;
}

export function testingDetails(run: TestRunDetails, key: TestingDetailsRequest): TestingDetails {
  const impactedTargets = targetList(run.impactedTargets);
  const forTested = targetList(run.impactedTargetsForTestedPrs);
  return {
    requiredStatuses: run.requiredStatuses,
    ...(run.requiredStatusesSource !== null ? { requiredStatusesSource: run.requiredStatusesSource } : {}),
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha ?? '',
    createdAt: iso(run.createdAt),
    status: run.status,
    // railyard reads commit statuses, not GitHub check runs.
    checkSuites: [],
    statusChecks: run.statuses.map((s) => ({
      context: s.context,
      ...(s.url !== null ? { url: s.url } : {}),
      state: upperState(s.state),
    })),
    testedPullRequests: run.prs.map((p) => {
      const prUrl = pullRequestUrl(key.repo, p.pr);
      return { prNumber: p.pr, ...(prUrl ? { prUrl } : {}), title: p.title };
    }),
    ...(impactedTargets ? { impactedTargets } : {}),
    ...(forTested ? { impactedTargetsForTestedPrs: forTested } : {}),
    dependentPrs: run.dependentPrs,
    ...(run.stalledChecks
      ? {
          stalledChecks: {
            checks: [...run.stalledChecks.checks],
            cause: run.stalledChecks.cause,
            since: iso(run.stalledChecks.since),
            graceMinutes: run.stalledChecks.graceMinutes,
            text: stalledChecksSentence(run.stalledChecks),
          },
        }
      : {}),
  };
}

function upperState(state: CommitStatusReport['state']): TestingDetails['statusChecks'][number]['state'] {
  switch (state) {
    case 'pending':
      return 'PENDING';
    case 'success':
      return 'SUCCESS';
    case 'failure':
      return 'FAILURE';
    case 'error':
      return 'ERROR';
  }
}
