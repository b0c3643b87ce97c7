/**
 * Read helpers for the workflow's queries (getQueue, getSubmittedPullRequest while queued,
 * getMergeQueueTestingDetails). Pure projections of the state; they never change it.
 *
 * Rules: `enqueuedPullRequests` is Trunk's `enqueuedPullRequests`: the line in queue order, without
 * the `not_ready` PRs. A test run is visible while the engine tracks it; once its PRs have left, the
 * `startTestRun` command (recorded by the workflow) is the record of what it tested.
 */
import { type Entry, type Group, type PrState, type QueueState } from './model';
import { type PriorityName, priorityName } from './priorities';
import { type Reason } from './reasons';

export interface PullRequestView {
  pr: number;
  state: PrState;
  reason: Reason;
  stateChangedAt: number;
  headSha: string;
  priorityValue: number;
  priorityName: PriorityName;
  skipTheLine: boolean;
  noBatch: boolean;
  submittedAt: number;
  /** 0-based place in the line; null while not ready. */
  position: number | null;
  /** The run deciding the PR now (or that decided it), if any. */
  testRunId: string | null;
  bisection: boolean;
}

export type TestRunStatus = 'in_progress' | 'succeeded' | 'failed';

export interface TestRunView {
  testRunId: string;
  /** The PRs this run decides (more than one when batched). */
  prs: number[];
  /** PRs under them in the tested tree, not yet merged (Trunk's `dependentPrs`). */
  ahead: number[];
  bisection: boolean;
  status: TestRunStatus;
  baseSha: string | null;
  startedAt: number | null;
  /** The tree is exactly tip + ahead + prs (false once another lane merged underneath). */
  exact: boolean;
}

export function enqueuedPullRequests(state: QueueState): PullRequestView[] {
  return allPullRequests(state).filter((v) => v.state !== 'not_ready');
}

/** Every PR in the queue, the line first, then the not-ready ones. */
export function allPullRequests(state: QueueState): PullRequestView[] {
  let position = 0;
  return state.entries.map((e) => view(state, e, e.state === 'not_ready' ? null : position++));
}

export function pullRequestView(state: QueueState, pr: number): PullRequestView | null {
  return allPullRequests(state).find((v) => v.pr === pr) ?? null;
}

export function isInQueue(state: QueueState, pr: number): boolean {
  return state.entries.some((e) => e.pr === pr);
}

export function testRuns(state: QueueState): TestRunView[] {
  return state.groups.flatMap((g) => (g.runId === null ? [] : [runView(g, g.runId)]));
}

export function testRunView(state: QueueState, testRunId: string): TestRunView | null {
  return testRuns(state).find((r) => r.testRunId === testRunId) ?? null;
}

function view(state: QueueState, e: Entry, position: number | null): PullRequestView {
  const group = state.groups.find((g) => g.key === e.group);
  return {
    pr: e.pr,
    state: e.state,
    reason: e.reason,
    stateChangedAt: e.stateChangedAt,
    headSha: e.headSha,
    priorityValue: e.priority,
    priorityName: priorityName(e.priority),
    skipTheLine: e.priority === 0,
    noBatch: e.noBatch,
    submittedAt: e.submittedAt,
    position,
    testRunId: group?.runId ?? null,
    bisection: group?.bisection ?? false,
  };
}

function runView(g: Group, testRunId: string): TestRunView {
  const status: TestRunStatus =
    g.status === 'passed' ? 'succeeded' : g.status === 'failed' ? 'failed' : 'in_progress';
  return {
    testRunId,
    prs: g.prs,
    ahead: g.ahead,
    bisection: g.bisection,
    status,
    baseSha: g.baseSha,
    startedAt: g.startedAt,
    exact: g.exact,
  };
}
