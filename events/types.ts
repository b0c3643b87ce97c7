/**
 * The PR transition events the queue workflow appends to the event log (PostgreSQL), in batches: one
 * `appendTransitions` activity call per main-loop drain, never one per transition. The log is
 * append-only and idempotent: (submissionId, seq) identifies an event, so an activity retried after a
 * crash inserts nothing twice. Metrics, webhooks and PR history read from it.
 */
import type { PrTransitionNotice, QueueKey, QueueViewDelta, ReasonDetail, RepositoryKey } from '../contract';
import type { PrState } from '../engine';

export interface TransitionEvent {
  organisationId: string;
  repo: RepositoryKey;
  targetBranch: string;
  prNumber: number;
  submissionId: string;
  /** 1, 2, 3… per submission, in transition order. */
  seq: number;
  from: PrState | null;
  to: PrState;
  reason: string;
  testRunId: string | null;
  /** The PRs tested together in `testRunId` (a batch when more than one). */
  batch: number[];
  isBisection: boolean;
  testBranch: string | null;
  testBranchSha: string | null;
  /** Epoch milliseconds (the workflow clock of the transition). */
  at: number;
  title: string;
  author: string;
  headSha: string;
  /** What made the reason concrete (contract/pr-reasons.ts); absent in older events. */
  detail?: ReasonDetail;
  /** Who judged `testRunId`: the queue's test command (its log is kept) or CI's statuses. */
  runner?: 'command' | 'statuses';
  /**
   * The notice the PR's workflow was sent for this transition, without its presentation, and when
   * the submission was made: the read projection's durable copy (ADR 0016), folded into the PR's
   * record with the append. Absent in events of older workers.
   */
  record?: { submittedAt: number; notice: PrTransitionNotice };
}

export interface AppendTransitionsInput {
  events: TransitionEvent[];
  /**
   * The queue that sent them: its view is read and stored in the read projection after the append
   * (ADR 0016). Absent from appends of older workers and from tests that only fill the log.
   */
  queue?: QueueKey;
  /**
   * What changed in the queue's view since the one the projection last acknowledged to this run
   * (contract/queue-view-delta.ts): applied instead of querying the queue. Absent from older workers
   * (their view is queried, as before).
   */
  view?: QueueViewDelta;
}
