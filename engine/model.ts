/**
 * The queue state: plain JSON data, carried through continue-as-new and returned by queries.
 *
 * Rules and invariants:
 * - Only objects, arrays, strings, numbers, booleans and null; no Map, Set, Date, class or
 *   `undefined`. Times are epoch milliseconds. Arrays inside entries and groups are values: the
 *   engine replaces them, it never mutates one in place (decide relies on this to copy cheaply).
 * - `entries` is the queue in line order: first the *started* entries (those that have been
 *   tested since admission, in the order they started), then the never-started `pending` ones
 *   sorted by priority then submission, then the `not_ready` ones. See ordering.ts.
 * - Finished PRs leave the state: `entries` holds only non-terminal PRs, `groups` only groups with
 *   a member in `entries`, `knownResults` only trees made of PRs in `entries`. State size is
 *   therefore proportional to the number of PRs in the queue, not to its history.
 * - A group is the unit a test run decides: its members are contiguous in the line, and every
 *   member of a group has `group` set to its key.
 */
import { queueConfig, type QueueConfig, type QueueConfigPatch, type QueueMode } from './config';
import { type FailureReason, type Reason } from './reasons';

export type QueueStatus = 'running' | 'paused' | 'draining' | 'switching_modes';
/** What `updateQueue` may set; `switching_modes` is entered by the engine only. */
export type RequestedStatus = Exclude<QueueStatus, 'switching_modes'>;

export type ActivePrState = 'not_ready' | 'pending' | 'testing' | 'tests_passed' | 'pending_failure';
export type TerminalPrState = 'merged' | 'failed' | 'cancelled';
export type PrState = ActivePrState | TerminalPrState;

export const TERMINAL_STATES: readonly TerminalPrState[] = ['merged', 'failed', 'cancelled'];

/** Whether a PR has left the queue for good. Takes any string, so readers of the wire can ask too. */
export const isTerminal = (state: string): state is TerminalPrState =>
  (TERMINAL_STATES as readonly string[]).includes(state);

/** Impacted targets uploaded for one head sha; `'ALL'` impacts everything, `[]` nothing. */
export interface ImpactedTargets {
  sha: string;
  targets: string[] | 'ALL';
}

export interface Entry {
  pr: number;
  headSha: string;
  /** A head pushed while the PR was being merged: applied (the PR leaves the line) once that is over. */
  newHeadSha: string | null;
  /** 0..255, lower first. */
  priority: number;
  noBatch: boolean;
  /** Submission order, unique and increasing; breaks priority ties. */
  seq: number;
  submittedAt: number;
  state: ActivePrState;
  reason: Reason;
  stateChangedAt: number;
  /** Readiness reported by the PR's workflow (mergeable, base branch matches, checks passed). */
  ready: boolean;
  /** The target-branch commit the PR head is up to date with, if known (direct merge needs it). */
  baseSha: string | null;
  targets: ImpactedTargets | null;
  /** Key of the group deciding this PR, or null while it waits for one. */
  group: number | null;
  /** Has been tested since it was admitted: its line position is fixed (see ordering.ts). */
  started: boolean;
  /** When it last became `pending`: the batching wait counts from here. */
  queuedAt: number;
  /**
   * Found good by the bisection of a batch it was in (bisection.ts) and back in the line to be tested
   * again; cleared when it is tested on the main line. Absent (false) in states from before bisection
   * beside the line.
   */
  cleared?: boolean;
}

/**
 * waiting: formed but without a run yet (bisection chunks, restarts in place);
 * testing: its run is in flight; passed / failed: its run (or a known result) decided.
 */
export type GroupStatus = 'waiting' | 'testing' | 'passed' | 'failed';

export interface GroupFailure {
  reason: FailureReason;
  /** When the failure names one PR (a merge conflict while building), blame goes to it alone. */
  culpritPr: number | null;
}

export interface Group {
  key: number;
  prs: number[];
  /** A chunk of a failed batch, bisected beside the line (bisection.ts): never merged, never a base. */
  bisection: boolean;
  /**
   * Bisection chunks only: the key of the bisection they belong to (the failed batch's group key);
   * chunk j of a bisection is tested on the chunks before it of the same bisection, nothing else.
   */
  bisectionKey?: number;
  /**
   * Bisection chunks only: the runs that show this chunk's tree holds a culprit, or cleared PRs that
   * were with it (the failed batch, failed chunks, passing chunks under it). A culprit is ejected
   * naming them (`convictedBy`).
   */
  evidence?: string[];
  /** A direct merge in flight: no run, merged because the PR was already on the tip. */
  direct: boolean;
  status: GroupStatus;
  /** PRs under `prs` in the tested tree that are not on the target branch yet, in tree order. */
  ahead: number[];
  /** The tested tree is exactly tip + ahead + prs (false once another lane merged underneath). */
  exact: boolean;
  runId: string | null;
  baseSha: string | null;
  startedAt: number | null;
  deadline: number | null;
  failure: GroupFailure | null;
  /**
   * The failed tests its failed run named (failed-tests.ts, bounded); absent when it has not failed or
   * named none. Absent fields below keep the state of a queue that never saw a test id as it was.
   */
  failedTests?: FailedTests;
  /**
   * Bisection chunks only: the tests that failed in the batch being bisected (a complete list). A chunk
   * run is told to run only these, and a chunk failing none of them holds no culprit (bisection.ts).
   */
  suspects?: FailedTests;
  /** Its runs that failed only in known-flaky tests and were run again (flaky-retry.ts), in order. */
  retriedRuns?: string[];
  /** Its run in flight runs only some tests (a flaky retry, a chunk): no known result is kept of it. */
  partial?: boolean;
}

/** A result for a tree (tip + `tree`, in order), kept for bisection_skip_redundant_tests. */
export interface KnownResult {
  tree: number[];
  passed: boolean;
  runId: string | null;
}

/**
 * The queue's measured failure rate (failure-rate.ts): recent merged PRs and culprits, each older
 * outcome weighing less. Two numbers, bounded by the estimate's memory.
 */
export interface FailureRate {
  merged: number;
  culprits: number;
}

export type MergeVia = 'tested_commit' | 'rebase' | 'direct';

export interface MergeInFlight {
  mergeId: string;
  prs: number[];
  via: MergeVia;
  runId: string | null;
}

/** The failed tests of one run (failed-tests.ts keeps them bounded): `ids` are all of them only when `complete`. */
export interface FailedTests {
  ids: string[];
  complete: boolean;
}

export interface QueueState {
  schema: 1;
  config: QueueConfig;
  status: QueueStatus;
  /** The state an operator asked for; `switching_modes` returns to it. */
  requestedStatus: RequestedStatus;
  /** The mode a `switching_modes` queue is waiting to switch to. */
  pendingMode: QueueMode | null;
  /** The target branch tip as last reported (null until the workflow tells). */
  tipSha: string | null;
  nextSeq: number;
  nextGroupKey: number;
  entries: Entry[];
  groups: Group[];
  knownResults: KnownResult[];
  /** At most one merge is in flight, so every merge compares-and-swaps against a known tip. */
  merge: MergeInFlight | null;
  /** When the caller must deliver the next `tick` (a deadline or a batch's wait); null: none due. */
  wakeAt: number | null;
  /**
   * Absent until an outcome is observed (the estimate's prior applies); only a batching queue with a
   * speculation threshold or adaptive batching keeps one.
   */
  failureRate?: FailureRate;
}

/** An empty running queue; the config is completed from Trunk's defaults and normalised. */
export function initialState(config: QueueConfigPatch = {}, tipSha: string | null = null): QueueState {
  return {
    schema: 1,
    config: queueConfig(config),
    status: 'running',
    requestedStatus: 'running',
    pendingMode: null,
    tipSha,
    nextSeq: 1,
    nextGroupKey: 1,
    entries: [],
    groups: [],
    knownResults: [],
    merge: null,
    wakeAt: null,
  };
}
