/**
 * The queue workflow's contract: its input, and the messages shared by the workflow and its callers
 * (the API, the test-run workflow).
 *
 * Updates answer the API calls that change the queue; each has a synchronous validator, so a request
 * that cannot apply (unknown PR, non-empty queue on delete) is rejected without touching history.
 * Queries serve reads. Signals carry outside notifications that need no answer (CI statuses).
 *
 * Rejections are ApplicationFailures whose `type` is one of QueueRejection, which the API maps to
 * HTTP statuses (not_found → 404, not_empty / invalid → 400, unavailable → 503); a submission rejected
 * after its update completed reports the same types through getAdmissionsQuery.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PrState, QueueConfigPatch, RequestedStatus } from '../engine';
import type { QueueKey } from './ids';
import type { StalledChecks } from './stalled-checks';
import type { RunCommandResult } from './test-run-messages';

/**
 * `continuing`: the queue is about to continue as new and takes no change meanwhile (it would start
 * work that puts continue-as-new off again); nothing was applied, and the queue client asks again.
 */
export type QueueRejection = 'not_found' | 'not_empty' | 'invalid' | 'deleted' | 'unavailable' | 'continuing';

/** Queue settings beyond the engine's decisions (how to test, which statuses gate a run). */
export interface RunnerSettings {
  /** Contexts that must pass for a run tested by external CI; null = use the repository's command. */
  requiredStatuses: string[] | null;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /**
   * Settings Trunk's live API and its Terraform provider carry. They are stored and returned so
   * declarative clients see no drift; railyard does not act on them.
   */
  extensionEnabled: boolean;
  enqueueingLabel: string;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
  notReadyTimeoutHours: number;
  testBranchConstructionMode: string;
  /** How a host with an API lands (GitHub, docs/github.md); absent = `push`. railyard's own setting. */
  landingMode?: 'push' | 'api';
  /** Prefix of this queue's test branches; absent = the host's (`trunk-merge/` on GitHub). */
  testBranchPrefix?: string;
  /**
   * Whether test commands may use the network (railyard's own, issue 17); absent = true. Off, the
   * executor runs the command in a network namespace of its own: loopback only.
   */
  testNetwork?: boolean;
  /**
   * Minutes after a test branch is pushed to a host with checks (GitHub) within which each required
   * check must have started, else it is reported stalled (engine/stalled-checks.ts); 0 turns the report
   * off. railyard's own (issue 28); absent = DEFAULT_STALL_GRACE_MINUTES.
   */
  stalledCheckGraceMinutes?: number;
}

export interface QueueWorkflowInput {
  key: QueueKey;
  config: QueueConfigPatch;
  runner?: Partial<RunnerSettings>;
  /** Carried across continue-as-new; absent on the first run. */
  carried?: unknown;
  /**
   * Continue-as-new after this many history events (a test hook); absent: after
   * QUEUE_CONTINUE_AS_NEW_AFTER_EVENTS, or sooner when the server suggests it.
   */
  continueAsNewAfterEvents?: number;
  /** Test hook: the longest pause between retries of an event-log append (default 30 s, at least 1 s). */
  appendMaximumIntervalMs?: number;
}

/**
 * A queue run continues as new past this many history events (runs that began before stop 43: at the
 * server's suggestion, about 4,100). A worker that lost a run from its cache replays the whole run
 * within one workflow task, at about 1.6 ms of CPU an event on a quiet 2-core machine (4,174 events:
 * 6.5 s); busy, such a replay outlasted the task timeout again and again after a continue-as-new met
 * new signals (UnhandledCommand), and the queue stalled for 40 s while its submits timed out.
 */
export const QUEUE_CONTINUE_AS_NEW_AFTER_EVENTS = 2_000;

/**
 * The queue workflow's task timeout (Temporal's default is 10 s): room for the replay above on a busy
 * worker. A worker that dies in the middle of a task is replaced after this long.
 */
export const QUEUE_WORKFLOW_TASK_TIMEOUT = '20 seconds';

/** Runs until the queue is deleted; everything it says goes through the messages below. */
export type QueueWorkflow = (input: QueueWorkflowInput) => Promise<void>;

/** Longest commit title and body a submit may set (the API answers 400 naming the field past them). */
export const MAX_COMMIT_TITLE = 256;
export const MAX_COMMIT_BODY = 8_000;

/**
 * The landed commit's title and body for one PR (squash and merge commits; a rebase keeps each
 * commit's own message). Absent parts take the queue's template (git/merge-methods.ts).
 */
export interface CommitMessage {
  title?: string;
  body?: string;
}

export interface SubmitInput {
  pr: number;
  /** 0–255; null = the default (medium). */
  priority: number | null;
  noBatch: boolean;
  /**
   * The head the submission is bound to (a `/trunk merge` binds the head its comment saw): the PR is
   * admitted only while its head is this commit, else the submission is rejected (`invalid`) and a new
   * one is needed. Absent: whatever head the queue reads.
   */
  expectedHeadSha?: string;
  /** The landed commit's title and body, over the PR description's `merge-commit-title:` line. */
  commitMessage?: CommitMessage;
}

export interface SubmitResult {
  submissionId: string;
  /** True when the PR was already in the queue and its priority / noBatch were updated in place. */
  resubmitted: boolean;
}

/**
 * Where a submission's admission stands (admission.ts). `pending` until the PR was read and its record
 * can be read; `settled` once it can (also for ids this run does not know: admitted before a
 * continue-as-new, which waits for every admission); `rejected` with the reason the submit failed.
 */
export type AdmissionState =
  | { state: 'pending' }
  | { state: 'settled' }
  | { state: 'rejected'; rejection: QueueRejection; message: string };

export interface ImpactedTargetsInput {
  pr: number;
  headSha: string;
  targets: string[] | 'ALL';
}

export interface UpdateQueueInput {
  config: QueueConfigPatch;
  state?: RequestedStatus;
  runner?: Partial<RunnerSettings>;
  /** Revert requiredStatuses to "none set" (Trunk's deleteRequiredStatuses). */
  deleteRequiredStatuses?: boolean;
}

export interface QueuedPullRequest {
  id: string;
  pr: number;
  state: PrState;
  stateChangedAt: number;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  title: string;
  headSha: string;
  baseBranch: string;
  author: string;
}

export interface QueueSnapshot {
  /** Engine config plus runner settings and the queue state. */
  settings: QueueSettingsSnapshot;
  /** Queue order, not-ready PRs excluded (Trunk's enqueuedPullRequests). */
  enqueued: QueuedPullRequest[];
  /** Every PR still in the queue, including not-ready ones. */
  inQueue: number;
  /** Ids of the test runs in progress, in queue order; absent from workers older than this field. */
  testRunsInProgress?: string[];
  /**
   * The read projection's version of this snapshot (ADR 0016): the queue's first run id, and a count
   * that only grows within it (every drain and the delete move it). Absent from older workers.
   */
  generation?: string;
  revision?: number;
  /** The queue was deleted (it ends once empty and its transitions are stored). */
  deleted?: boolean;
}

export interface QueueSettingsSnapshot extends RunnerSettings {
  state: 'running' | 'paused' | 'draining' | 'switching_modes';
  branch: string;
  mode: 'single' | 'parallel';
  concurrency: number;
  bisectionConcurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  directMergeMode: 'off' | 'always';
  optimizationMode: 'off' | 'bisection_skip_redundant_tests';
  mergeMethod: 'merge_commit' | 'squash' | 'rebase';
  /** railyard's extension (engine/adaptive-batching.ts); absent from workers older than it: `fixed`. */
  batchingMode?: 'fixed' | 'adaptive';
  /** Adaptive batching's cost target, runs per merged PR; absent: the engine's default. */
  batchingRunsPerPrTarget?: number;
  /** Flaky retries (engine/flaky-retry.ts); absent until set: the engine's default. */
  flakyRetries?: number;
  /**
   * An adaptive queue's plan now (engine/adaptive-batching.ts `currentPlan`): batch size, depth and the
   * failure rate they were planned for. Absent for a fixed queue and from workers older than it.
   */
  adaptivePlan?: { size: number; depth: number; failureRate: number };
}

export interface CommitStatusReport {
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  url: string | null;
  description: string | null;
}

export interface TestRunDetails {
  testRunId: string;
  testBranch: string;
  testBranchSha: string | null;
  createdAt: number;
  status: 'in_progress' | 'failed' | 'cancelled' | 'succeeded';
  bisection: boolean;
  prs: { pr: number; title: string }[];
  dependentPrs: number[];
  requiredStatuses: string[];
  requiredStatusesSource: 'merge_instance' | 'trunk_config' | 'repo_provider_branch_protection' | null;
  statuses: CommitStatusReport[];
  impactedTargets: string[] | 'ALL' | null;
  impactedTargetsForTestedPrs: string[] | 'ALL' | null;
  /** Its required checks that have not started within the queue's grace (stall-watch.ts); absent: none. */
  stalledChecks?: StalledChecks;
}

export const submitUpdate = defineUpdate<SubmitResult, [SubmitInput]>('submitPullRequest');
/** `actor`: who asked (an API key's name and organisation), shown in the PR's record. */
export interface CancelInput {
  pr: number;
  actor?: string;
}

export const cancelUpdate = defineUpdate<void, [CancelInput]>('cancelPullRequest');
export const restartUpdate = defineUpdate<void, [{ pr: number }]>('restartTestsOnPullRequest');
export const setImpactedTargetsUpdate = defineUpdate<void, [ImpactedTargetsInput]>('setImpactedTargets');
export const updateQueueUpdate = defineUpdate<QueueSettingsSnapshot, [UpdateQueueInput]>('updateQueue');
export const deleteQueueUpdate = defineUpdate<void, []>('deleteQueue');

export const getQueueQuery = defineQuery<QueueSnapshot>('getQueue');
export const getTestRunQuery = defineQuery<TestRunDetails | null, [string]>('getTestRun');
/** The admission state of each submission id asked for (one query answers every waiting caller). */
export const getAdmissionsQuery = defineQuery<Record<string, AdmissionState>, [string[]]>('getAdmissions');

export const commitStatusSignal = defineSignal<[CommitStatusReport]>('commitStatus');

/**
 * A hint that something changed on the git host (a GitHub webhook, or the reconciliation Schedule).
 * Hints carry no state: the queue re-reads what a hint names, so a dropped, duplicated or reordered
 * hint can only delay the queue, never mislead it.
 *  - `pull_request`: PR `pr` was pushed to, closed, reopened, retargeted or reviewed.
 *  - `target`: branch `branch` was pushed to (the queue acts only when it is its target branch).
 *  - `checks`: the check runs or commit statuses of commit `sha` changed.
 *  - `reconcile`: re-read everything the queue depends on (queued PRs, the target tip, the checks of
 *    every run in progress).
 */
export type HostHint =
  | { kind: 'pull_request'; pr: number }
  | { kind: 'target'; branch: string }
  | { kind: 'checks'; sha: string }
  | { kind: 'reconcile' };

export const hostHintSignal = defineSignal<[HostHint]>('hostHint');

/**
 * A test run's result, sent to its queue by workflow id (so it reaches the queue's current run): by the
 * finishTestRun activity for a recorded run, by the test-run workflow for a config problem or an error.
 */
export interface TestRunFinishedNotice {
  runId: string;
  result: RunCommandResult | { kind: 'error'; detail: string };
}

export const testRunFinishedSignal = defineSignal<[TestRunFinishedNotice]>('testRunFinished');
