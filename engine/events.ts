/**
 * Inputs to the engine. The workflow turns API calls, activity results, timers and outside
 * notifications into these and feeds them to `decide` one at a time.
 *
 * Rules:
 * - Events about test runs and merges name the id the engine gave them; an event for a run or merge
 *   the engine no longer tracks (cancelled, superseded, replayed twice) is ignored, so activities
 *   may report late or twice.
 * - `submitted` for a PR already in the queue is a resubmission: it updates priority and `noBatch` in
 *   place (Trunk v1 behaviour), exactly like `priorityChanged`.
 * - `targetBranchMoved` is for pushes the queue did not make; the queue's own merges are reported
 *   with `mergeDone` (a `targetBranchMoved` to the sha the engine already knows is a no-op).
 */
import { type QueueConfigPatch } from './config';
import { type RequestedStatus } from './model';
import {
  type CancelReason,
  type MergeFailureReason,
  type NotReadyReason,
  type StartFailureReason,
  type SubmitReason,
} from './reasons';

export interface TestCaseResult {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Decided by the flaky-test service when the result was ingested. */
  quarantined: boolean;
  /**
   * Known flaky by the flaky-test service when the queue asked (its status is flaky, or the test is
   * quarantined); absent = not known flaky. Only a failed test's answer matters (failed-tests.ts).
   */
  flaky?: boolean;
}

export type TestRunOutcome = 'passed' | 'failed' | 'timeout';

/** `command`: the `command` runner's exit decided; `statuses`: CI's required statuses did. */
export type RunJudge = 'command' | 'statuses';

export type EngineEvent =
  | {
      type: 'submitted';
      pr: number;
      headSha: string;
      priority: number;
      noBatch: boolean;
      /** Readiness known at submission (mergeable, base matches, checks passed). */
      ready: boolean;
      baseSha: string | null;
      reason?: SubmitReason;
    }
  | { type: 'ready'; pr: number; headSha: string; baseSha: string | null }
  | { type: 'notReady'; pr: number; reason: NotReadyReason }
  | { type: 'cancelled'; pr: number; reason: CancelReason }
  | { type: 'restarted'; pr: number; reason: 'TESTS_RESTARTED_BY_USER' | 'TESTS_RESTARTED_BY_API_REQUEST' }
  | { type: 'priorityChanged'; pr: number; priority: number; noBatch: boolean }
  | { type: 'impactedTargetsSet'; pr: number; headSha: string; targets: string[] | 'ALL' }
  | { type: 'configUpdated'; patch: QueueConfigPatch; state?: RequestedStatus }
  /** The test branch was built on `baseSha` and CI was started. */
  | { type: 'testRunStarted'; runId: string; baseSha: string }
  | { type: 'testRunFailedToStart'; runId: string; reason: StartFailureReason; culpritPr: number | null }
  | {
      type: 'testRunFinished';
      runId: string;
      outcome: TestRunOutcome;
      tests?: TestCaseResult[];
      /** Who judged the run: the queue's test command, or CI's required statuses (the default). */
      judge?: RunJudge;
    }
  | { type: 'mergeDone'; mergeId: string; newTipSha: string }
  | {
      type: 'mergeFailed';
      mergeId: string;
      /** `TARGET_BRANCH_MOVED`: the compare-and-swap lost against a push; `tipSha` is the new tip. */
      reason: MergeFailureReason | 'TARGET_BRANCH_MOVED';
      /** The PR that could not be merged, when one is to blame. */
      pr: number | null;
      /** PRs of this merge that did land before it failed (lane merges apply PRs one by one). */
      mergedPrs: number[];
      tipSha: string | null;
    }
  | { type: 'targetBranchMoved'; sha: string }
  /** The PR was merged by hand while in the queue. */
  | { type: 'mergedOutsideQueue'; pr: number }
  | { type: 'tick' };

export type EngineEventType = EngineEvent['type'];
