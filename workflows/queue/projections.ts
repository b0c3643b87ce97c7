/**
 * Read projections for the queue workflow's queries: the queue as getQueue answers it and one test run
 * as getMergeQueueTestingDetails answers it. Pure functions of the carried state.
 */
import {
  currentPlan,
  DEFAULT_STALL_GRACE_MINUTES,
  enqueuedPullRequests,
  testRuns,
  type QueueState,
} from '../../engine';
import type { Carried, RunMeta } from './carried';
import type { QueueSettingsSnapshot, QueueSnapshot, TestRunDetails } from '../../contract';

export function settingsOf(c: Carried, branch: string): QueueSettingsSnapshot {
  const cfg = c.engine.config;
  return {
    ...c.runner,
    state: c.engine.status,
    branch,
    mode: cfg.mode,
    concurrency: cfg.concurrency,
    bisectionConcurrency: cfg.bisectionConcurrency,
    testingTimeoutMinutes: cfg.testingTimeoutMinutes,
    canOptimisticallyMerge: cfg.canOptimisticallyMerge,
    pendingFailureDepth: cfg.pendingFailureDepth,
    batch: cfg.batch,
    batchingMaxWaitTimeMinutes: cfg.batchingMaxWaitTimeMinutes,
    batchingMinSize: cfg.batchingMinSize,
    directMergeMode: cfg.directMergeMode,
    optimizationMode: cfg.optimizationMode,
    mergeMethod: cfg.mergeMethod,
    // Only when set (engine/config.ts), so a queue that never set them answers as before.
    ...(cfg.batchingMode === undefined ? {} : { batchingMode: cfg.batchingMode }),
    ...(cfg.batchingRunsPerPrTarget === undefined
      ? {}
      : { batchingRunsPerPrTarget: cfg.batchingRunsPerPrTarget }),
    ...(cfg.flakyRetries === undefined ? {} : { flakyRetries: cfg.flakyRetries }),
    ...adaptivePlanOf(c.engine),
  };
}

/** An adaptive queue's plan now, for getQueue; nothing for a fixed queue (its snapshot is as before). */
function adaptivePlanOf(state: QueueState): Pick<QueueSettingsSnapshot, 'adaptivePlan'> {
  const plan = currentPlan(state);
  return plan ? { adaptivePlan: { size: plan.size, depth: plan.depth, failureRate: plan.failureRate } } : {};
}

export function snapshotOf(c: Carried, branch: string): QueueSnapshot {
  return {
    settings: settingsOf(c, branch),
    inQueue: c.engine.entries.length,
    // The engine's view decides which runs are live (as getTestRun does); a query writes no history.
    testRunsInProgress: testRuns(c.engine)
      .filter((r) => r.status === 'in_progress' && c.runs.some((m) => m.runId === r.testRunId))
      .map((r) => r.testRunId),
    enqueued: enqueuedPullRequests(c.engine).map((v) => {
      const meta = c.prs[String(v.pr)];
      return {
        id: meta?.submissionId ?? '',
        pr: v.pr,
        state: v.state,
        stateChangedAt: v.stateChangedAt,
        priorityValue: v.priorityValue,
        priorityName: v.priorityName,
        usedDefaultPriorityName: meta?.explicitPriority ? v.priorityName : 'medium',
        skipTheLine: v.skipTheLine,
        noBatch: v.noBatch,
        title: meta?.title ?? '',
        headSha: v.headSha,
        baseBranch: meta?.baseBranch ?? branch,
        author: meta?.author ?? '',
      };
    }),
  };
}

function targetsOf(state: QueueState, prs: number[]): string[] | 'ALL' | null {
  const sets = prs.map((n) => state.entries.find((e) => e.pr === n)?.targets?.targets ?? null);
  if (sets.some((s) => s === 'ALL')) return 'ALL';
  const lists = sets.filter((s): s is string[] => Array.isArray(s));
  return lists.length === 0 ? null : [...new Set(lists.flat())].sort();
}

/** Trunk's name for where a run's required statuses came from. */
function sourceOf(run: RunMeta): TestRunDetails['requiredStatusesSource'] {
  if (run.required?.source === 'branch_protection') return 'repo_provider_branch_protection';
  if (run.required?.source === 'trunk_config') return 'trunk_config';
  return run.runner === 'statuses' ? 'merge_instance' : 'trunk_config';
}

export function testRunDetailsOf(c: Carried, run: RunMeta): TestRunDetails {
  const required = run.required?.contexts ?? c.runner.requiredStatuses ?? [];
  return {
    testRunId: run.runId,
    testBranch: run.branchName ?? '',
    testBranchSha: run.headSha,
    createdAt: run.createdAt,
    status: run.status === 'building' ? 'in_progress' : run.status,
    bisection: run.bisection,
    prs: run.prs.map((pr) => ({ pr, title: run.titles[String(pr)] ?? '' })),
    dependentPrs: run.ahead,
    requiredStatuses: required,
    requiredStatusesSource: sourceOf(run),
    statuses: run.statuses,
    impactedTargets: targetsOf(c.engine, [...run.ahead, ...run.prs]),
    impactedTargetsForTestedPrs: targetsOf(c.engine, run.prs),
    ...(run.stall && run.branchName
      ? {
          stalledChecks: {
            ...run.stall,
            testBranch: run.branchName,
            graceMinutes: c.runner.stalledCheckGraceMinutes ?? DEFAULT_STALL_GRACE_MINUTES,
          },
        }
      : {}),
  };
}
