/**
 * The detail a PR's transition carries (contract/pr-reasons.ts): what the queue knows about
 * why, beyond the reason's name. The test run that decided the transition holds it (the failing command
 * and tests, the conflict, CI's statuses); a cancellation names who asked.
 *
 * Invariants: pure reads of the carried state, so the same history gives the same details on replay;
 * every list is bounded (boundedNames) before it enters a workflow payload.
 */
import type { NotifyPr } from '../../engine';
import { boundedNames, type ReasonDetail, type RunCommandResult } from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
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
  return { kind: 'statuses', failed: boundedNames(failed).names, missing: boundedNames(missing).names };
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
  const run = cmd.runId ? ctx.carried.runs.find((r) => r.runId === cmd.runId) : undefined;
  if (!run) return undefined;
  if (run.detail) return run.detail;
  const judgedByStatuses =
    cmd.reason === 'TEST_RUN_REQUIRED_STATUS_FAILED' || cmd.reason === 'TEST_RUN_TIMEOUT';
  return judgedByStatuses && run.runner === 'statuses' ? statusesDetail(ctx, run) : undefined;
}

/** A PR that failed because it does not merge is never shown as mergeable. */
export function conflicted(cmd: NotifyPr): boolean {
  return (
    (cmd.to === 'failed' || cmd.to === 'pending_failure') &&
    (cmd.reason === 'START_TEST_RUN_MERGE_CONFLICT' || cmd.reason === 'MERGE_CONFLICT_AT_MERGE_TIME')
  );
}
