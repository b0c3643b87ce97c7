/**
 * PrNotifier: the PR-facing side of each drain. Every transition the engine reports (`notifyPr`,
 * routed here by the drain loop) is numbered per submission and, at the end of the drain, handed to
 * the side effects of the decision (side-effects.ts): for the event log, and for each PR's workflow.
 *
 * Invariants: notices keep transition order; a finished submission's metadata leaves the queue state
 * only after its terminal notice is queued; the transitions go to the event log through the carried
 * state (`Carried.unstored`), which keeps them until they are stored.
 */
import type { TransitionEvent } from '../../events/types';
import { parsePriority, priorityName, type NotifyPr } from '../../engine';
import type { Presentation, PrTransitionNotice, StalledChecks, TestedOn } from '../../contract';
import { detailsOf } from './carried';
import type { QueueContext } from './context';
import type { SideEffects } from './side-effects';
import { conflicted, transitionDetail } from './reason-details';

function withoutPresentation(n: PrTransitionNotice): PrTransitionNotice {
  const { presentation: _shown, ...notice } = n;
  return notice;
}

export class PrNotifier {
  private notices = new Map<number, PrTransitionNotice[]>();
  constructor(
    private readonly ctx: QueueContext,
    private readonly effects: SideEffects,
  ) {}

  record(cmd: NotifyPr): void {
    const meta = this.ctx.carried.prs[String(cmd.pr)];
    if (!meta) return;
    const entry = this.ctx.carried.engine.entries.find((e) => e.pr === cmd.pr);
    const priority = entry?.priority ?? parsePriority('medium')!;
    meta.notified += 1;
    const detail = transitionDetail(this.ctx, cmd);
    const runner = cmd.runId ? this.ctx.carried.runs.find((r) => r.runId === cmd.runId)?.runner : undefined;
    const details = detailsOf(
      meta,
      entry?.headSha ?? '',
      priority,
      priorityName(priority),
      entry?.noBatch ?? false,
    );
    // A PR that failed on a conflict does not merge, whatever the host said when it was admitted.
    if (conflicted(cmd)) details.readiness = { ...details.readiness, gitHubMergeability: 'not_mergeable' };
    const notice: PrTransitionNotice = {
      submissionId: meta.submissionId,
      seq: meta.notified,
      transition: {
        at: cmd.at,
        from: cmd.from,
        to: cmd.to,
        reason: cmd.reason,
        testRunId: cmd.runId,
        ...(detail ? { detail } : {}),
        ...(runner ? { runner } : {}),
        // A bisection's culprit: the runs that convicted it, kept in its record (railyard's extension).
        ...(cmd.convictedBy && cmd.convictedBy.length > 0 ? { convictedBy: cmd.convictedBy } : {}),
      },
      details,
      presentation: this.presentationOf(cmd.pr),
      ...this.runOf(cmd),
    };
    const list = this.notices.get(cmd.pr) ?? [];
    list.push(notice);
    this.notices.set(cmd.pr, list);
  }

  /**
   * Sends a submission's current details to its record between transitions (why it waits changed, or
   * the commit its test run built: `testedOn`).
   * Nothing when a transition of it is about to be sent anyway (it carries the details), or before
   * its record exists.
   */
  refresh(pr: number, testedOn?: TestedOn, stalledChecks?: StalledChecks | null): void {
    const meta = this.ctx.carried.prs[String(pr)];
    if (!meta || meta.notified === 0 || this.notices.has(pr)) return;
    const entry = this.ctx.carried.engine.entries.find((e) => e.pr === pr);
    if (!entry) return;
    const details = detailsOf(
      meta,
      entry.headSha,
      entry.priority,
      priorityName(entry.priority),
      entry.noBatch,
    );
    const { key } = this.ctx;
    const workflow = { key, prNumber: pr, submissionId: meta.submissionId, submittedAt: meta.submittedAt };
    const refresh = {
      submissionId: meta.submissionId,
      afterSeq: meta.notified,
      details,
      ...(testedOn ? { testedOn } : {}),
      ...(stalledChecks !== undefined ? { stalledChecks } : {}),
    };
    this.effects.refresh(workflow, refresh);
  }

  /** Where the transition's run tested the PR, and for a landing what the target became. */
  private runOf(cmd: NotifyPr): Pick<PrTransitionNotice, 'testedOn' | 'mergedAs'> {
    const run = cmd.runId ? this.ctx.carried.runs.find((r) => r.runId === cmd.runId) : undefined;
    const tip = this.ctx.carried.engine.tipSha;
    return {
      ...(run?.branchName ? { testedOn: { branch: run.branchName, sha: run.headSha } } : {}),
      // The engine has moved its tip past the landing by the time it reports the PR merged.
      ...(cmd.to === 'merged' && cmd.reason !== 'MANUAL_MERGE' && tip ? { mergedAs: tip } : {}),
    };
  }

  /** The queue's presentation settings and the PR's place in the line, as of this transition. */
  private presentationOf(pr: number): Presentation {
    const { runner, engine } = this.ctx.carried;
    const index = engine.entries.findIndex((e) => e.pr === pr);
    return {
      comment: runner.commentsEnabled,
      checkRun: runner.statusCheckEnabled,
      position: index < 0 ? null : index + 1,
      queueLength: engine.entries.length,
    };
  }

  flush(): void {
    const { carried: c, key } = this.ctx;
    if (this.notices.size > 0)
      this.effects.store(
        [...this.notices].flatMap(([pr, notices]) => {
          const submittedAt = c.prs[String(pr)]?.submittedAt;
          return notices.map((n) => this.transitionEvent(pr, n, submittedAt));
        }),
      );
    for (const [pr, notices] of this.notices) {
      const meta = c.prs[String(pr)];
      if (!meta) continue;
      const workflow = { key, prNumber: pr, submissionId: meta.submissionId, submittedAt: meta.submittedAt };
      this.effects.notify(workflow, notices);
      // A submission that ended has nothing more to say; its record lives on in its own workflow.
      if (!c.engine.entries.some((e) => e.pr === pr)) delete c.prs[String(pr)];
    }
    this.notices.clear();
  }

  private transitionEvent(pr: number, n: PrTransitionNotice, submittedAt?: number): TransitionEvent {
    const { key } = this.ctx;
    const run = n.transition.testRunId
      ? this.ctx.carried.runs.find((r) => r.runId === n.transition.testRunId)
      : undefined;
    return {
      organisationId: key.organisationId,
      repo: key.repo,
      targetBranch: key.targetBranch,
      prNumber: pr,
      submissionId: n.submissionId,
      seq: n.seq,
      from: n.transition.from,
      to: n.transition.to,
      reason: n.transition.reason,
      testRunId: n.transition.testRunId,
      batch: run ? run.prs : [pr],
      isBisection: run?.bisection ?? false,
      testBranch: run?.branchName ?? null,
      testBranchSha: run?.headSha ?? null,
      at: n.transition.at,
      title: n.details.title,
      author: n.details.author,
      headSha: n.details.headSha,
      ...(n.transition.detail ? { detail: n.transition.detail } : {}),
      ...(n.transition.runner ? { runner: n.transition.runner } : {}),
      // The read projection folds the PR's record from it (ADR 0016); the presentation is the PR
      // workflow's alone.
      ...(submittedAt !== undefined ? { record: { submittedAt, notice: withoutPresentation(n) } } : {}),
    };
  }
}
