/**
 * The report of a run's required checks that have not started (issue 28, "no silent stall"): what a
 * PR's record, its live comment and the `pull_request.checks_stalled` webhook carry. Its own module:
 * both the record's messages (pull-request-messages.ts) and its sentence (pr-reasons.ts) use it.
 */
import type { StallCause } from '../engine';

/**
 * Required checks of the PR's test run that have not started within the queue's grace after its test
 * branch was pushed (engine/stalled-checks.ts): a report, not a verdict (the testing timeout still ends
 * the run). Cleared when they start or the PR moves on.
 */
export interface StalledChecks {
  /** The required checks without any check run or status (at most MAX_DETAIL_NAMES). */
  checks: string[];
  cause: StallCause;
  /** When the grace ended (epoch ms). */
  since: number;
  testBranch: string;
  graceMinutes: number;
}
