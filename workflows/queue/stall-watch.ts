/**
 * StallWatch (issue 28, "no silent stall"): a run tested by the host's CI (GitHub) whose required
 * checks have not all started within the queue's `stalledCheckGraceMinutes` after its test branch was
 * pushed is reported stalled, naming the checks and the likely cause (engine/stalled-checks.ts
 * decides; contract/pr-reasons.ts says it): in its PRs' records (and so their live comments and the
 * dashboard), in the worker's log, and as a `pull_request.checks_stalled` webhook.
 *
 * Rules:
 * - Nothing polls. The queue loop wakes once at the end of each run's grace (nextAt, through its one
 *   timer); a run whose checks are then still missing has them read once more (a webhook may have been
 *   lost) and the read decides. Every later read of its checks (webhook hints, the reconciliation)
 *   decides again: a check that starts clears the report.
 * - A report changes nothing else: the testing timeout still ends the run.
 * Invariants: a run is reported once per set of stalled checks; runs of the queue's own command and of
 * hosts without checks (no `pushedAt`) are never watched; determinism: only the workflow clock.
 */
import { log } from '@temporalio/workflow';
import { checkStall, DEFAULT_STALL_GRACE_MINUTES, type CheckStall } from '../../engine';
import { boundedNames, type StalledChecks } from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import { requiredOf } from './status-verdict';

function graceOf(ctx: Pick<QueueContext, 'carried'>): number {
  return ctx.carried.runner.stalledCheckGraceMinutes ?? DEFAULT_STALL_GRACE_MINUTES;
}

function stallOf(ctx: Pick<QueueContext, 'carried'>, run: RunMeta, now: number): CheckStall {
  if (run.status !== 'in_progress' || run.pushedAt === undefined || !run.branchName) return { kind: 'off' };
  return checkStall({
    required: requiredOf(ctx, run),
    reported: run.statuses.map((s) => s.context),
    pushedAt: run.pushedAt,
    now,
    graceMinutes: graceOf(ctx),
  });
}

/** Decides a run's stall on what it holds now, and reports a change (set or cleared). */
export function judgeStall(ctx: QueueContext, run: RunMeta): void {
  const s = stallOf(ctx, run, Date.now());
  if (s.kind === 'stalled') {
    const checks = boundedNames(s.checks).names;
    if (run.stall && run.stall.checks.join('\n') === checks.join('\n') && run.stall.cause === s.cause) return;
    run.stall = { checks, cause: s.cause, since: s.since };
    const report: StalledChecks = {
      ...run.stall,
      testBranch: run.branchName!,
      graceMinutes: graceOf(ctx),
    };
    log.warn('required checks have not started', { runId: run.runId, sha: run.headSha, ...report });
    for (const pr of run.prs) ctx.refreshDetails(pr, undefined, report);
    return;
  }
  if (!run.stall) return;
  delete run.stall;
  if (run.status === 'in_progress') for (const pr of run.prs) ctx.refreshDetails(pr, undefined, null);
}

export class StallWatch {
  /** Runs whose grace ended, read once more before deciding (the read judges: host-reader.ts). */
  private readonly asked = new Set<string>();

  constructor(
    private readonly ctx: QueueContext,
    private readonly readChecks: (run: RunMeta) => void,
  ) {}

  /** When the next run's grace ends; null when no run is waiting for its checks to start. */
  nextAt(): number | null {
    let next = Infinity;
    for (const run of this.waiting()) {
      const s = stallOf(this.ctx, run, Date.now());
      if (s.kind === 'waiting') next = Math.min(next, s.decideAt);
      else if (s.kind === 'stalled') next = Math.min(next, s.since);
    }
    return Number.isFinite(next) ? next : null;
  }

  /** Reads the checks of each run whose grace has ended without them all. */
  run(): void {
    for (const run of this.waiting()) {
      if (stallOf(this.ctx, run, Date.now()).kind !== 'stalled') continue;
      this.asked.add(run.runId);
      this.readChecks(run);
    }
  }

  private waiting(): RunMeta[] {
    return this.ctx.carried.runs.filter(
      (r) => r.status === 'in_progress' && r.pushedAt !== undefined && !r.stall && !this.asked.has(r.runId),
    );
  }
}
