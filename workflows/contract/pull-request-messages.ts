/**
 * The pull-request workflow's contract: its input, its record and its messages. The queue workflow
 * reports every transition of a submission (through an activity that signals-with-start, since PR
 * workflows are not its children); the API reads the record with a query, also after the submission
 * ended.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PrState } from '../engine';
import type { QueueKey } from './ids';

export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';
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
}

/** One transition, numbered per submission so a retried delivery is recorded once. */
export interface PrTransitionNotice {
  submissionId: string;
  seq: number;
  transition: TimelineEntry;
  details: PrDetails;
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
}

/** Ends with the submission, answering its final record. */
export type PullRequestWorkflow = (input: PullRequestWorkflowInput) => Promise<PullRequestRecord>;

export const prTransitionSignal = defineSignal<[PrTransitionNotice]>('prTransition');
export const getPullRequestQuery = defineQuery<PullRequestRecord>('getPullRequest');
