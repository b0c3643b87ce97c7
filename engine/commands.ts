/**
 * Outputs of the engine: what the workflow must do, in order.
 *
 * Rules:
 * - `startTestRun`: build a test branch on the target tip plus `ahead` then `prs` (in that order)
 *   and run CI on it; report `testRunStarted` / `testRunFailedToStart` / `testRunFinished` with the
 *   same `runId`. `stackedOnRunId` names a live run whose tree is exactly this one minus `prs`:
 *   building on its commit keeps the chain of tested commits linear, so a later `tested_commit`
 *   merge is a fast-forward.
 * - `merge`: with `via = tested_commit`, compare-and-swap the target from `expectedTipSha` to the
 *   commit run `runId` tested (its tree is exactly tip + prs); with `rebase` (parallel mode, when
 *   another lane merged underneath) apply `prs` in order onto the current tip with `method`; with
 *   `direct`, merge the single PR with `method`. Report `mergeDone` or `mergeFailed`.
 * - `notifyPr`: the PR's own workflow records every transition; a terminal one is the last word
 *   about that submission (the entry has left the state).
 * Time is not a command: the state's `wakeAt` says when the caller must deliver the next `tick`, so
 * it survives with the state. A tick that arrives when nothing is due changes nothing, so a stale
 * timer needs no cancelling.
 */
import { type MergeMethod } from './config';
import { type MergeVia, type PrState } from './model';
import { type CancelReason, type RestartReason, type Transition } from './reasons';

export type CancelRunReason =
  | RestartReason
  | CancelReason
  | 'TEST_RUN_TIMEOUT'
  /** Its PRs are merging on the strength of a later run that passed. */
  | 'COVERED_BY_PASSING_RUN';

export type NotifyPr = {
  type: 'notifyPr';
  pr: number;
  from: PrState | null;
  at: number;
  runId: string | null;
  /**
   * A culprit found by bisection (`failed`): the runs that convicted it, in the order they decided
   * (the failed batch, then the chunk runs that failed with it or passed without it).
   */
  convictedBy?: string[];
  /**
   * A PR ejected for failing tests (`failed`): the failed tests that convicted it (bounded,
   * failed-tests.ts), those of its deciding run that had failed in its batch when it was bisected.
   */
  failedTests?: string[];
} & Transition;

export type EngineCommand =
  | {
      type: 'startTestRun';
      runId: string;
      prs: number[];
      ahead: number[];
      baseSha: string | null;
      stackedOnRunId: string | null;
      bisection: boolean;
      /**
       * Run only these tests where the runner can (a flaky retry: the failed tests; a bisection chunk:
       * the tests that failed in its batch). Absent: the whole suite. Bounded (failed-tests.ts).
       */
      onlyTests?: string[];
    }
  | { type: 'cancelTestRun'; runId: string; reason: CancelRunReason }
  | {
      type: 'merge';
      mergeId: string;
      prs: number[];
      via: MergeVia;
      runId: string | null;
      method: MergeMethod;
      expectedTipSha: string | null;
    }
  | NotifyPr;

export type EngineCommandType = EngineCommand['type'];
