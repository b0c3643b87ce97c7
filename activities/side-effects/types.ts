/**
 * The side effects one decision of the queue workflow produces (one drain of its inbox), handed to one
 * `performSideEffects` activity (index.ts): plain data that crosses the workflow boundary, so the
 * workflow imports these types without the implementation.
 *
 * Each effect has a `key`, unique within its call, by which the activity reports it done or failed (and,
 * run as a regular activity, skips it when Temporal retries the call).
 */
import type {
  PrDetailsRefresh,
  PrTransitionNotice,
  PullRequestWorkflowInput,
  RepositoryKey,
} from '../../contract';
import type { AppendTransitionsInput } from '../../events/types';
import type { AppendResult } from '../events/append';

export type SideEffect =
  /**
   * Store transitions in the event log (and the queue's view in the read projection): the append
   * activity's input as it is, so what it learns to take reaches it unchanged.
   */
  | ({ kind: 'appendTransitions'; key: string } & AppendTransitionsInput)
  /** Deliver a submission's new transitions to its PR workflow, in seq order. */
  | {
      kind: 'notifyPullRequest';
      key: string;
      workflow: PullRequestWorkflowInput;
      notices: PrTransitionNotice[];
    }
  /** New details between transitions, for a running PR workflow only. */
  | {
      kind: 'refreshPullRequestDetails';
      key: string;
      workflow: PullRequestWorkflowInput;
      refresh: PrDetailsRefresh;
    }
  /** Delete a finished run's test branch (and its draft PR). */
  | {
      kind: 'deleteTestBranch';
      key: string;
      repo: RepositoryKey;
      branchName: string;
      testBranchPrefix?: string;
    };

export type SideEffectKind = SideEffect['kind'];

export interface SideEffectsInput {
  effects: SideEffect[];
}

export interface SideEffectsResult {
  /** Keys of the effects performed (in this attempt or an earlier one of the same call). */
  done: string[];
  /**
   * Effects not performed, each with its error: the workflow tries again the `retryable` ones (in their
   * order, after a pause) and logs the others. An effect after a failed one of its submission is not
   * tried, and is reported retryable.
   */
  failed: { key: string; error: string; retryable: boolean }[];
  /** What the append answered, when it was done in this attempt. */
  appended?: AppendResult;
}
