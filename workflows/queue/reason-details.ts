/**
 * The detail a PR's transition carries (contract/pr-reasons.ts): what the queue knows about
 * why, beyond the reason's name. The test run that decided the transition holds it (the failing command
 * and tests, the conflict, CI's statuses); a cancellation names who asked.
 *
 * Invariants: pure reads of the carried state, so the same history gives the same details on replay;
 * every list is bounded (boundedNames) before it enters a workflow payload.
 */
import type { NotifyPr } from '../../engine';
import {
  boundedNames,
  type EvidenceRun,
  MAX_DETAIL_NAMES,
  type ReasonDetail,
  type RunCommandResult,
} from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import { passedOnTargetOf } from './passed-on-target';
import { requiredOf } from './status-verdict';

/** A failed command run: its exit code and the failing tests it reported (quarantined ones left out). */
export function commandFailure(result: Extract<RunCommandResult, { kind: 'finished' }>): ReasonDetail {
  const failed = boundedNames(
    result.tests.filter((t) => t.status === 'failed' && !t.quarantined).map((t) => t.name),
  );
  return {
    kind: 'command_failed',
    exitCode: result.exitCode ?? null,
    failedTests: failed.names,
    moreFailedTests: failed.more,
  };
}

/** Required statuses of a `statuses` run that failed, and those that have not passed. */
export function statusesDetail(ctx: Pick<QueueContext, 'carried'>, run: RunMeta): ReasonDetail {
  const latest = new Map<string, string>();
  for (const s of run.statuses) latest.set(s.context, s.state);
  const required = requiredOf(ctx, run);
  const failed = required.filter((c) => latest.get(c) === 'failure' || latest.get(c) === 'error');
  const missing = required.filter((c) => latest.get(c) !== 'success' && !failed.includes(c));
  return {
    kind: 'statuses',
    failed: boundedNames(failed).names,
    missing: boundedNames(missing).names,
    // A failure whose failed tests CI never uploaded (ci-uploads.ts): the run as a whole decided.
    ...(run.noUploadAfterSeconds !== undefined ? { noUploadAfterSeconds: run.noUploadAfterSeconds } : {}),
    ...(run.uploadsUnreadable ? { uploadsUnreadable: true as const } : {}),
  };
}

/** The detail of one transition the engine reported, or undefined when its reason says it all. */
export function transitionDetail(
  ctx: Pick<QueueContext, 'carried'>,
  cmd: NotifyPr,
): ReasonDetail | undefined {
  if (cmd.to === 'cancelled') {
    const actor = ctx.carried.prs[String(cmd.pr)]?.cancelledBy;
    return cmd.reason === 'USER_REQUESTED' && actor ? { kind: 'actor', actor } : undefined;
  }
  if (cmd.to === 'merged') {
    const landing = ctx.carried.prs[String(cmd.pr)]?.landing;
    if (!landing) return undefined;
    const { sha, testedTree, landedTree, rebased } = landing;
    return { kind: 'landing', sha, testedTree, landedTree, ...(rebased ? { rebased } : {}) };
  }
  if (cmd.to !== 'failed' && cmd.to !== 'pending_failure') return undefined;
  const evidence = testEvidence(ctx, cmd);
  if (evidence) return evidence;
  const run = cmd.runId ? ctx.carried.runs.find((r) => r.runId === cmd.runId) : undefined;
  if (!run) return undefined;
  if (run.detail) return run.detail;
  const judgedByStatuses =
    cmd.reason === 'TEST_RUN_REQUIRED_STATUS_FAILED' || cmd.reason === 'TEST_RUN_TIMEOUT';
  return judgedByStatuses && run.runner === 'statuses' ? statusesDetail(ctx, run) : undefined;
}

/**
 * A PR ejected for failing tests (issue 28): the tests that convicted it, and the runs the verdict rests
 * on (`convictedBy`, else its deciding run), each with how many PRs it decided, its role and whether it
 * failed with this PR in its tree. A run following one on the same tree is that run's flaky retry
 * (engine/flaky-retry.ts). Runs no longer carried are left out. Undefined when no test was named: the
 * run's own detail (the command, CI's statuses) says more then.
 */
export function testEvidence(ctx: Pick<QueueContext, 'carried'>, cmd: NotifyPr): ReasonDetail | undefined {
  if (cmd.to !== 'failed' || !cmd.failedTests || cmd.failedTests.length === 0) return undefined;
  const ids = cmd.convictedBy ?? (cmd.runId ? [cmd.runId] : []);
  const runs: EvidenceRun[] = [];
  const metas: RunMeta[] = [];
  let previous: RunMeta | undefined;
  for (const id of ids) {
    const run = ctx.carried.runs.find((r) => r.runId === id);
    if (!run) continue;
    metas.push(run);
    const retry = previous !== undefined && sameTree(previous, run);
    runs.push({
      testRunId: id,
      prs: run.prs.length,
      role: retry ? 'flaky_retry' : run.bisection ? 'bisection' : 'batch',
      failed: run.status === 'failed' && (run.prs.includes(cmd.pr) || run.ahead.includes(cmd.pr)),
    });
    previous = run;
  }
  const tests = boundedNames(cmd.failedTests);
  const shown = runs.slice(0, MAX_DETAIL_NAMES);
  // Where those tests last passed on the target, as the judge or CI's uploads named it.
  const passedOnTarget = passedOnTargetOf(metas, tests.names);
  return {
    kind: 'test_evidence',
    tests: tests.names,
    moreTests: tests.more,
    runs: shown,
    moreRuns: runs.length - shown.length,
    ...(passedOnTarget ? { passedOnTarget } : {}),
  };
}

const sameTree = (a: RunMeta, b: RunMeta) =>
  a.prs.join() === b.prs.join() && a.ahead.join() === b.ahead.join();

/** A PR that failed because it does not merge is never shown as mergeable. */
export function conflicted(cmd: NotifyPr): boolean {
  return (
    (cmd.to === 'failed' || cmd.to === 'pending_failure') &&
    (cmd.reason === 'START_TEST_RUN_MERGE_CONFLICT' || cmd.reason === 'MERGE_CONFLICT_AT_MERGE_TIME')
  );
}
