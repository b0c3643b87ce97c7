/**
 * The pull-request workflow's contract: its input, its record and its messages. The queue workflow
 * reports every transition of a submission (through an activity that signals-with-start, since PR
 * workflows are not its children); the API reads the record with a query, also after the submission
 * ended.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PrState } from '../engine';
import type { QueueKey } from './ids';
import type { ReasonDetail } from './pr-reasons';
import type { StalledChecks } from './stalled-checks';

export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';
  /** Why the host will not merge it yet, as a sentence (GitHub: a draft, a check that has not passed). */
  blockedBy?: string;
}

export interface PrDetails {
  title: string;
  headSha: string;
  baseBranch: string;
  author: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  noBatch: boolean;
  readiness: Readiness;
}

export interface TimelineEntry {
  at: number;
  from: PrState | null;
  to: PrState;
  reason: string;
  testRunId: string | null;
  /** What made the reason concrete (pr-reasons.ts); absent when the name says it all, and in older records. */
  detail?: ReasonDetail;
  /** Who judged `testRunId`: the queue's test command (its log is kept) or CI's statuses. */
  runner?: 'command' | 'statuses';
  /**
   * A culprit found by bisection (`failed`): the runs that convicted it, in the order they decided
   * (the failed batch, then the chunk runs that failed with it or passed without it). Absent otherwise.
   */
  convictedBy?: string[];
}

/**
 * How the PR is shown on its host (GitHub: one live comment and a check run on the head), from the
 * queue's settings when the transition happened. Absent from notices of older queues: nothing shown.
 */
export interface Presentation {
  /** `commentsEnabled`: keep one comment on the PR up to date, and mention the author on failure. */
  comment: boolean;
  /** `statusCheckEnabled`: a "railyard merge queue" check run on the PR's head. */
  checkRun: boolean;
  /** 1-based place among the queued PRs when the transition happened; null once it left. */
  position: number | null;
  /** Of the queue: how many PRs were in it. */
  queueLength: number;
}

/** One transition, numbered per submission so a retried delivery is recorded once. */
export interface PrTransitionNotice {
  submissionId: string;
  seq: number;
  transition: TimelineEntry;
  details: PrDetails;
  presentation?: Presentation;
  /** The test branch (and its commit, once built) of the run this transition came from. */
  testedOn?: TestedOn;
  /** For `merged` by the queue: the target branch's tip right after the landing. */
  mergedAs?: string;
}

/**
 * A delivery whose last notice moves its PR to `testing` in run `runId`: the delivery a build holds and
 * delivers with the commit it built (activities/merge-queue/held-testing-notices.ts), and so the one the
 * queue lets that build claim (workflows/queue/riding-git.ts).
 */
export function endsTestingIn(notices: readonly PrTransitionNotice[], runId: string): boolean {
  const t = notices[notices.length - 1]?.transition;
  return t?.to === 'testing' && t.testRunId === runId;
}

export interface TestedOn {
  branch: string;
  sha: string | null;
}

/** What presenting a record on the host left there, so the next update edits instead of adding. */
export interface PresentedIds {
  commentId: number | null;
  checkRunId: number | null;
  /** The last transition whose failure or cancellation was announced in a comment of its own. */
  announcedSeq: number;
}

/** The presentPullRequest activity's input: the record as it stands, and where it was shown so far. */
export interface PresentPullRequestInput {
  key: QueueKey;
  record: PullRequestRecord;
  /** Number of transitions the record holds (the latest seq). */
  seq: number;
  presentation: Presentation;
  ids: PresentedIds;
}

export interface PullRequestWorkflowInput {
  key: QueueKey;
  prNumber: number;
  submissionId: string;
  submittedAt: number;
}

export interface PullRequestRecord {
  id: string;
  prNumber: number;
  state: PrState;
  stateChangedAt: number;
  reason: string;
  details: PrDetails | null;
  skipTheLine: boolean;
  isCurrentlySubmittedToQueue: boolean;
  verifiedByTestRun: string | null;
  timeline: TimelineEntry[];
  /** The latest test branch the PR was tested on (absent from records made before it was kept). */
  testedOn?: TestedOn | null;
  /** Merged by the queue: the target's tip right after its landing, which contains the PR. */
  mergedAs?: string | null;
  /** Failed as the culprit of a bisection: the runs that convicted it (its last such transition's). */
  convictedBy?: string[];
  /** Its test run's required checks that have not started (absent: none stalled). */
  stalledChecks?: StalledChecks;
}

/** Ends with the submission, answering its final record. */
export type PullRequestWorkflow = (input: PullRequestWorkflowInput) => Promise<PullRequestRecord>;

/**
 * The transitions of one delivery, in seq order: what the queue decided for a submission at once costs
 * its workflow one signal and one workflow task, not one per transition (issue 25).
 */
export const prTransitionSignal = defineSignal<[PrTransitionNotice[]]>('prTransitions');

/**
 * New details of a submission between transitions: why a not-ready PR waits, when that changed, and the
 * commit its test run built.
 * Applied only when the record has exactly `afterSeq` transitions, so a refresh never overtakes a
 * transition or outlives the state it describes.
 */
export interface PrDetailsRefresh {
  submissionId: string;
  afterSeq: number;
  details: PrDetails;
  /** The run's test branch, once built (the transition to testing comes before the build). */
  testedOn?: TestedOn;
  /** Its run's required checks stalled (set), or started after all (null); absent: unchanged. */
  stalledChecks?: StalledChecks | null;
}

export const prDetailsSignal = defineSignal<[PrDetailsRefresh]>('prDetails');
export const getPullRequestQuery = defineQuery<PullRequestRecord>('getPullRequest');
