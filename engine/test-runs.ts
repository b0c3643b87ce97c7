/**
 * Test runs reporting back: started, failed to start, finished, timed out.
 *
 * Rules:
 * - A report names its run; a report for a run the engine no longer tracks (cancelled, replaced,
 *   a duplicate delivery) is ignored, never applied to whatever group runs now.
 * - A passing verdict (quarantine-aware, verdict.ts) moves the group to `passed` and its PRs to
 *   `tests_passed`; merging is decided later (optimistic-merge.ts). A failing one moves them to
 *   `pending_failure` with the failure reason, keeping the failed tests it names (failed-tests.ts);
 *   blame is decided later (pending-failure.ts). Before that, a failure only in known-flaky tests is
 *   run again (flaky-retry.ts), and a bisection chunk failing none of its batch's failed tests counts
 *   as passed for its bisection (`UNRELATED_FAILURE_IN_BISECTION`, bisection.ts).
 * - `testingTimeoutMinutes` counts from when the run was asked for. At the deadline the run is
 *   cancelled and fails with `TEST_RUN_TIMEOUT`, whether or not CI ever reported; a `timeout`
 *   outcome from the runner is the same failure.
 * - Failing to build the test branch is a failure of the run; a named culprit (the PR whose merge
 *   conflicted) is the one blamed, not the group.
 * Invariant: every run result for an exact tree is recorded as a known result (known-results.ts),
 * except a partial run's (only some tests, `partial`) and a failure that is retried.
 */
import { type EngineEvent } from './events';
import { type Draft, command, groupByRun, membersOf, transition } from './draft';
import { failedTestsOf, unrelatedFailure } from './failed-tests';
import { retryFlakyFailure } from './flaky-retry';
import { recordResult } from './known-results';
import { type Group, type GroupFailure } from './model';
import { type PassedReason } from './reasons';
import { verdictOf } from './verdict';

type RunEvent<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

export function onTestRunStarted(d: Draft, event: RunEvent<'testRunStarted'>): void {
  const group = liveRun(d, event);
  if (!group) return;
  group.baseSha = event.baseSha;
  // The workflow knows the tip before the engine does the first time a run is built.
  d.state.tipSha ??= event.baseSha;
}

export function onTestRunFinished(d: Draft, event: RunEvent<'testRunFinished'>): void {
  const group = liveRun(d, event);
  if (!group) return;
  const verdict = verdictOf(event.outcome, event.tests, event.judge);
  if (!verdict.passed && event.outcome === 'failed' && retryFlakyFailure(d, group, event.tests)) return;
  // A run of only some tests says nothing about the whole tree another run could reuse.
  if (event.outcome !== 'timeout' && !group.partial) recordResult(d, group, verdict.passed);
  if (verdict.passed) {
    passGroup(d, group, group.retriedRuns ? 'FLAKY_TESTS_PASSED_ON_RETRY' : verdict.reason);
    return;
  }
  const failed = event.outcome === 'failed' ? failedTestsOf(event.tests) : null;
  if (group.bisection && unrelatedFailure(failed, group.suspects)) {
    group.failedTests = failed!;
    passGroup(d, group, 'UNRELATED_FAILURE_IN_BISECTION');
    return;
  }
  failGroup(d, group, { reason: verdict.reason, culpritPr: null });
  if (failed) group.failedTests = failed;
}

export function onTestRunFailedToStart(d: Draft, event: RunEvent<'testRunFailedToStart'>): void {
  const group = liveRun(d, event);
  if (!group) return;
  const culpritPr = event.culpritPr !== null && group.prs.includes(event.culpritPr) ? event.culpritPr : null;
  failGroup(d, group, { reason: event.reason, culpritPr });
}

/** Fails every run whose deadline has passed. */
export function expireRuns(d: Draft): void {
  for (const group of d.state.groups) {
    if (group.status !== 'testing' || group.deadline === null || group.deadline > d.ctx.now) continue;
    if (group.runId !== null)
      command(d, { type: 'cancelTestRun', runId: group.runId, reason: 'TEST_RUN_TIMEOUT' });
    failGroup(d, group, { reason: 'TEST_RUN_TIMEOUT', culpritPr: null });
  }
}

export function passGroup(d: Draft, group: Group, reason: PassedReason): void {
  group.status = 'passed';
  group.deadline = null;
  group.failure = null;
  // A bisection chunk passed despite an unrelated failure keeps its failed tests, for the record.
  if (reason !== 'UNRELATED_FAILURE_IN_BISECTION') delete group.failedTests;
  for (const e of membersOf(d, group)) transition(d, e, { to: 'tests_passed', reason }, group.runId);
  d.dirty = true;
}

/** Fails the group; the failed tests it is left with are the caller's to set (onTestRunFinished). */
export function failGroup(d: Draft, group: Group, failure: GroupFailure): void {
  delete group.failedTests;
  group.status = 'failed';
  group.deadline = null;
  group.failure = failure;
  for (const e of membersOf(d, group)) {
    transition(d, e, { to: 'pending_failure', reason: failure.reason }, group.runId);
  }
  d.dirty = true;
}

/** The group a report is about; undefined for a run no longer in flight (ignored). */
function liveRun(d: Draft, event: { runId: string }): Group | undefined {
  const group = groupByRun(d, event.runId);
  return group?.status === 'testing' ? group : undefined;
}
