/**
 * The merge-queue engine's public surface: the only file imported from outside `engine`.
 *
 * `decide(state, event, ctx)` is the whole engine: a pure reducer with no Temporal import, no I/O,
 * no clock and no randomness. The workflow keeps `QueueState` (plain JSON) across continue-as-new,
 * feeds it one `EngineEvent` at a time with `ctx = { now, newId }`, and runs the returned
 * `EngineCommand`s in order. The read helpers serve its queries.
 */
export { decide, type Decision } from './decide';
export { type EngineContext } from './draft';
export {
  initialState,
  isTerminal,
  TERMINAL_STATES,
  type ActivePrState,
  type Entry,
  type FailureRate,
  type Group,
  type GroupStatus,
  type ImpactedTargets,
  type KnownResult,
  type MergeInFlight,
  type MergeVia,
  type PrState,
  type QueueState,
  type QueueStatus,
  type RequestedStatus,
  type TerminalPrState,
} from './model';
export {
  applyConfigPatch,
  BATCHING_MODES,
  DEFAULT_BATCHING_MODE,
  DEFAULT_CONFIG,
  DEFAULT_FLAKY_RETRIES,
  DEFAULT_RUNS_PER_PR_TARGET,
  flakyRetriesOf,
  MAX_FLAKY_RETRIES,
  MAX_RUNS_PER_PR_TARGET,
  MIN_RUNS_PER_PR_TARGET,
  queueConfig,
  type BatchingMode,
  type DirectMergeMode,
  type MergeMethod,
  type OptimizationMode,
  type QueueConfig,
  type QueueConfigPatch,
  type QueueMode,
} from './config';
export {
  type EngineEvent,
  type EngineEventType,
  type RunJudge,
  type TestCaseResult,
  type TestRunOutcome,
} from './events';
export {
  failedTestsOf,
  MAX_FAILED_TEST_CHARS,
  MAX_FAILED_TESTS,
  MAX_FAILED_TESTS_READ,
  MAX_TEST_ID_LENGTH,
  type FailedTests,
} from './failed-tests';
export { type CancelRunReason, type EngineCommand, type EngineCommandType, type NotifyPr } from './commands';
export type {
  CancelReason,
  FailureReason,
  MergeFailureReason,
  MergedReason,
  NotReadyReason,
  PassedReason,
  QueuedReason,
  Reason,
  RestartReason,
  StartFailureReason,
  SubmitReason,
  TestingReason,
  Transition,
} from './reasons';
export {
  DEFAULT_PRIORITY,
  MAX_PRIORITY,
  PRIORITY_VALUES,
  parsePriority,
  priorityName,
  type PriorityName,
} from './priorities';
export { targetsIntersect, type TargetList } from './lanes';
export {
  adaptivePlan,
  currentPlan,
  modelOf,
  type BatchPlan,
  type CurrentPlan,
  type Modelled,
} from './adaptive-batching';
export {
  checkStall,
  DEFAULT_STALL_GRACE_MINUTES,
  MAX_STALL_GRACE_MINUTES,
  type CheckStall,
  type CheckStallInput,
  type StallCause,
} from './stalled-checks';
export { judgePreflightChecks, type PreflightChecks, type PreflightChecksInput } from './preflight';
export {
  allPullRequests,
  enqueuedPullRequests,
  isInQueue,
  pullRequestView,
  testRunView,
  testRuns,
  type PullRequestView,
  type TestRunStatus,
  type TestRunView,
} from './views';
