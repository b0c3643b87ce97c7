/**
 * The classifier's vocabulary. A test's history is its results (one per attempt), the summaries
 * of the uploads they came from (for the infrastructure rule) and an optional manual flag.
 *
 * Times are `Date`s (what pg returns for timestamptz); the classifier never reads a clock.
 */

export type TestStatus = 'healthy' | 'flaky' | 'broken';

/** D2: `error` counts as `fail`; `skip` is ignored everywhere. */
export type Outcome = 'pass' | 'fail' | 'skip';

/** D3: `stable` and `merge_queue` together are the "stable set". */
export type BranchClass = 'stable' | 'merge_queue' | 'pr' | 'other';

export interface ObservedResult {
  readonly uploadId: string;
  readonly testId: string;
  /** 0-based attempt index within the upload. */
  readonly attempt: number;
  readonly outcome: Outcome;
  /** Code identity: the tree SHA when the upload gave one, else the commit SHA. */
  readonly commitSha: string;
  readonly branchClass: BranchClass;
  /** When the result happened (in production the upload's ingest time). */
  readonly at: Date;
}

/** Counts over one whole upload (all tests), for D4. */
export interface UploadSummary {
  readonly uploadId: string;
  /** Non-skipped results (attempts) in the upload. */
  readonly results: number;
  /** Of those, how many failed (failures and errors). */
  readonly failures: number;
}

export interface ManualFlag {
  readonly at: Date;
}

export interface TestHistory {
  readonly results: readonly ObservedResult[];
  readonly uploads: readonly UploadSummary[];
  readonly manualFlag?: ManualFlag;
}

export type ReasonCode =
  | 'mixed_outcomes_same_commit'
  | 'stable_failure_rate'
  | 'manual_flag'
  | 'consecutive_failing_commits'
  | 'broken_rate'
  | 'recovered'
  | 'stale'
  | 'no_signal'
  | 'no_results';

export interface Classification {
  readonly status: TestStatus;
  /** `code:detail`, or just `code` when there is no detail. */
  readonly reason: string;
  readonly reasonCode: ReasonCode;
  /** The time of the result (or the window boundary) that put the test into this status. */
  readonly timestamp: Date;
}

/** Maps a parsed JUnit attempt status onto an outcome (D2). */
export function outcomeOfStatus(status: 'passed' | 'failed' | 'error' | 'skipped'): Outcome {
  switch (status) {
    case 'passed':
      return 'pass';
    case 'failed':
    case 'error':
      return 'fail';
    case 'skipped':
      return 'skip';
  }
}
