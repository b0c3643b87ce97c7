/**
 * Why a pull request changed state. Every transition the engine makes carries one of these.
 *
 * Rule: Trunk's reason names are used wherever Trunk has one (its webhook enums `submitted_reason`,
 * `queued_reason`, `failure_reason`, `cancellation_reason`, `merged_reason`, see trunk-compat §3);
 * the few names Trunk does not have are railyard's own and are marked as such below.
 * Invariant: the reason type is tied to the destination state through `Transition`, so a PR can not
 * be marked `merged` with a failure reason.
 */

/** How a submission arrived (Trunk `submitted_reason`). */
export type SubmitReason = 'USER_REQUESTED' | 'API_REQUESTED' | 'TRUNK_ADMIN_REQUESTED';

/** Why an admitted PR went back to `not_ready` (railyard names: Trunk exposes readiness, not reasons). */
export type NotReadyReason =
  'AWAITING_MERGEABILITY' | 'BASE_BRANCH_MISMATCH' | 'PR_HEAD_CHANGED' | 'IMPACTED_TARGETS_MISSING';

/**
 * Why a PR that was testing (or had a result) went back to `pending` to be tested again
 * (Trunk `queued_reason`). The last three are railyard's.
 */
export type RestartReason =
  | 'PREREQUISITE_MERGE_ITEM_FAILED'
  | 'PREREQUISITE_MERGE_ITEM_CANCELLED'
  | 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED'
  | 'MANUAL_PUSH_TO_TARGET_BRANCH'
  | 'SKIP_THE_LINE_INTERRUPTED'
  | 'TESTS_RESTARTED_BY_USER'
  | 'TESTS_RESTARTED_BY_API_REQUEST'
  | 'BISECTION_REQUIRED'
  /** railyard: a PR underneath became not ready (lost mergeability, new head). */
  | 'PREREQUISITE_NOT_READY'
  /** railyard: impacted targets changed, so the PRs this one must be tested on changed (parallel mode). */
  | 'IMPACTED_TARGETS_CHANGED'
  /** railyard: the tested tree changed for a reason not attributable to one PR (mode switch, say). */
  | 'TEST_TREE_CHANGED'
  /** railyard: bisection beside the line found it good; it is tested again in the line, on the current tip. */
  | 'BISECTION_CLEARED';

export type QueuedReason = 'MERGE_ITEM_NOW_READY' | RestartReason;

/** railyard: Trunk's `pull_request.testing` carries no reason; these say which kind of run started. */
export type TestingReason =
  | 'TEST_RUN_STARTED'
  | 'BISECTION_TEST_RUN_STARTED'
  /** railyard: its run failed only in known-flaky tests, which are run again (flaky-retry.ts). */
  | 'FLAKY_TESTS_RETRIED';

/** railyard: Trunk has no `tests_passed` event; these say what evidence cleared the PR. */
export type PassedReason =
  | 'TEST_RUN_PASSED'
  /** The run failed, but every failed test is quarantined. */
  | 'QUARANTINED_FAILURES_IGNORED'
  /** A later run whose tree contains this PR passed (optimistic merge). */
  | 'LATER_TEST_RUN_PASSED'
  /** bisection_skip_redundant_tests: an identical tree already passed. */
  | 'KNOWN_RESULT_REUSED'
  /** Its run failed only in known-flaky tests, and they passed when run again (flaky-retry.ts). */
  | 'FLAKY_TESTS_PASSED_ON_RETRY'
  /**
   * A bisection run failed, but in none of the tests that failed in its batch: a new failure, not
   * evidence against its PRs (bisection.ts); they are tested again in the line, where it counts.
   */
  | 'UNRELATED_FAILURE_IN_BISECTION';

export type StartFailureReason =
  | 'START_TEST_RUN_INVALID_EVENT'
  | 'START_TEST_RUN_MERGE_CONFLICT'
  | 'START_TEST_RUN_CONFIG_NOT_FOUND'
  | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'
  | 'START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES'
  | 'START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES'
  | 'START_TEST_RUN_CONFIG_BAD_VERSION'
  | 'START_TEST_RUN_NO_REQUIRED_STATUSES'
  | 'START_TEST_RUN_RETRY_EXHAUSTED'
  | 'START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED';

export type MergeFailureReason =
  | 'GITHUB_API_MERGE_PR_FAILED'
  | 'GITHUB_API_DIRECT_MERGE_PR_FAILED'
  | 'PR_UPDATED_AT_MERGE_TIME'
  /** railyard: in parallel mode the PRs are merged onto a tip that moved in another lane and git refused. */
  | 'MERGE_CONFLICT_AT_MERGE_TIME'
  /**
   * railyard: the landing was refused because the target branch would not hold the tree the passing run
   * tested (the host's commit for the tested id has another tree; docs/git-host.md, "Landing proof").
   */
  | 'LANDED_TREE_DIFFERS';

/** Trunk `failure_reason`; a `pending_failure` carries the failure that put it there. */
export type FailureReason =
  | 'TEST_RUN_REQUIRED_STATUS_FAILED'
  /**
   * railyard: the queue's own test command (the `command` runner, `.railyard/merge-queue.json`) failed.
   * Trunk only knows required statuses; a failed command is not one, so it has a name of its own.
   */
  | 'TEST_RUN_COMMAND_FAILED'
  | 'TEST_RUN_TIMEOUT'
  | 'TEST_RUN_FAILED_BY_OPTIMIZATION'
  | StartFailureReason
  | MergeFailureReason;

export type MergedReason = 'MERGE_GRAPH_MERGE' | 'MERGE_GRAPH_DIRECT_MERGE' | 'MANUAL_MERGE';

export type CancelReason =
  | 'USER_REQUESTED'
  | 'API_REQUESTED'
  | 'TRUNK_ADMIN_REQUESTED'
  | 'PR_CLOSED'
  | 'PR_PUSHED_TO'
  | 'PR_BASE_BRANCH_CHANGED'
  | 'PR_CONVERTED_TO_DRAFT'
  | 'STACKED_PR_MEMBER_PUSHED_TO'
  | 'STACKED_PR_MEMBER_CLOSED'
  | 'STACKED_PR_MEMBER_MERGED'
  | 'STACKED_PR_MEMBER_BASE_BRANCH_CHANGED';

/** A state change with the reason types its destination allows. */
export type Transition =
  | { to: 'not_ready'; reason: SubmitReason | NotReadyReason }
  | { to: 'pending'; reason: QueuedReason }
  | { to: 'testing'; reason: TestingReason }
  | { to: 'tests_passed'; reason: PassedReason }
  | { to: 'pending_failure'; reason: FailureReason }
  | { to: 'failed'; reason: FailureReason }
  | { to: 'merged'; reason: MergedReason }
  | { to: 'cancelled'; reason: CancelReason };

export type Reason = Transition['reason'];
