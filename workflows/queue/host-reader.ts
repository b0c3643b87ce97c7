/**
 * HostReader: turns host hints (hostHintSignal: GitHub webhooks, the reconciliation Schedule) into
 * re-reads of the host, and what it reads into engine events. Hints carry no state, so a dropped,
 * duplicated or reordered hint can only delay the queue: every decision comes from a fresh read.
 *
 * - `pull_request`: a queued PR is read again. Merged outside the queue → `mergedOutsideQueue`;
 *   closed → cancelled `PR_CLOSED`; a new head → cancelled `PR_PUSHED_TO`; retargeted → `notReady`
 *   `BASE_BRANCH_MISMATCH`; a not-ready PR GitHub would now merge → `ready`.
 * - `target`: the target tip is read; a tip the engine does not hold → `targetBranchMoved`. Not while
 *   a merge of the queue is in flight (its compare-and-swap decides, and its own push must not read
 *   as an outside one), and checked again when the read returns.
 * - `checks`: the checks of that commit are read for each run in progress that tests it
 *   (`statuses` runner), replacing what the run held, then judged (status-verdict.ts); a not-ready PR
 *   whose head it is is read again (its own required checks may now let it merge).
 * - `reconcile`: all of the above for every queued PR (at most MAX_PR_READS), the target and every run
 *   in progress; and railyard's test PRs left by runs the queue no longer holds are closed
 *   (leftover-test-prs.ts).
 * A hint about a PR that is not queued reads nothing: railyard's own draft test PRs are never queued,
 * so the webhooks they cause are no-ops here (their checks reach the run through its head sha).
 * Invariants: reads are tracked work (continue-as-new waits for them); one read per subject is in
 * flight at a time, and a hint arriving meanwhile makes it read once more afterwards, so the last
 * read always starts after the last hint.
 */
import type { HostHint } from '../../contract';
import { git } from './activity-proxies';
import { bounded, type RunMeta } from './carried';
import type { QueueContext } from './context';
import { mergeabilityOf } from './enqueue';
import { closeLeftoverTestPrs } from './leftover-test-prs';
import { judgeStall } from './stall-watch';
import { judgeStatuses } from './status-verdict';

const MAX_PR_READS = 100;

export class HostReader {
  /** Subjects being read; true = a hint came meanwhile, read again. */
  private readonly reading = new Map<string, boolean>();

  constructor(private readonly ctx: QueueContext) {}

  hint(h: HostHint): void {
    switch (h.kind) {
      case 'pull_request':
        return this.readPr(h.pr);
      case 'target':
        if (h.branch === this.ctx.key.targetBranch) this.readTarget();
        return;
      case 'checks':
        for (const run of this.statusRuns()) if (run.headSha === h.sha) this.readChecks(run);
        // A PR waiting for its own required checks may have become ready.
        for (const entry of this.ctx.carried.engine.entries)
          if (entry.state === 'not_ready' && entry.headSha === h.sha) this.readPr(entry.pr);
        return;
      case 'reconcile':
        for (const entry of this.ctx.carried.engine.entries.slice(0, MAX_PR_READS)) this.readPr(entry.pr);
        this.readTarget();
        for (const run of this.statusRuns()) this.readChecks(run);
        this.once('test-prs', () => closeLeftoverTestPrs(this.ctx));
        return;
    }
  }

  /** Reads the checks of a run tested by CI (also right after it starts: CI may have reported first). */
  readChecks(run: RunMeta): void {
    const sha = run.headSha;
    if (!sha) return;
    this.once(`checks:${run.runId}`, async () => {
      const reports = await git.readChecks({ repo: this.ctx.key.repo, sha });
      if (run.status !== 'in_progress') return;
      if (reports !== null) {
        run.statuses = bounded(reports, 200);
        judgeStatuses(this.ctx, run);
      }
      // Whether its required checks have started (stall-watch.ts), on what the run now holds.
      judgeStall(this.ctx, run);
    });
  }

  private statusRuns(): RunMeta[] {
    return this.ctx.carried.runs.filter((r) => r.runner === 'statuses' && r.status === 'in_progress');
  }

  private readPr(pr: number): void {
    const { carried, key } = this.ctx;
    if (!carried.engine.entries.some((e) => e.pr === pr)) return;
    this.once(`pr:${pr}`, async () => {
      const s = await this.ctx.git.readPullRequest({ repo: key.repo, targetBranch: key.targetBranch, pr });
      const entry = carried.engine.entries.find((e) => e.pr === pr);
      if (!entry) return;
      if (s.state === 'merged') {
        this.ctx.push({ type: 'mergedOutsideQueue', pr });
        return;
      }
      if (!s.found) {
        this.ctx.push({ type: 'cancelled', pr, reason: 'PR_CLOSED' });
        return;
      }
      if (s.headSha !== entry.headSha) {
        this.ctx.push({ type: 'cancelled', pr, reason: 'PR_PUSHED_TO' });
        return;
      }
      const meta = carried.prs[String(pr)];
      if (s.baseBranch !== null && s.baseBranch !== key.targetBranch) {
        if (meta) {
          meta.baseBranch = s.baseBranch;
          meta.readiness.doesBaseBranchMatch = false;
        }
        if (entry.state !== 'not_ready')
          this.ctx.push({ type: 'notReady', pr, reason: 'BASE_BRANCH_MISMATCH' });
        return;
      }
      if (meta) {
        meta.readiness.gitHubMergeability = mergeabilityOf(s);
        const before = meta.readiness.blockedBy;
        meta.readiness.blockedBy = s.blockedBy;
        meta.readiness.doesBaseBranchMatch = true;
        // A waiting PR's record (and its live comment) says the new reason at once.
        if (before !== s.blockedBy && s.mergeable !== 'mergeable') this.ctx.refreshDetails(pr);
      }
      if (entry.state === 'not_ready' && s.mergeable === 'mergeable' && !entry.ready)
        this.ctx.push({
          type: 'ready',
          pr,
          headSha: s.headSha,
          baseSha: s.basedOnTargetTip ? s.targetTipSha : null,
        });
    });
  }

  private readTarget(): void {
    const { carried, key } = this.ctx;
    if (carried.engine.merge !== null) return;
    this.once('target', async () => {
      const tip = await git.readTargetTip({ repo: key.repo, targetBranch: key.targetBranch });
      if (tip === null || carried.engine.merge !== null || tip === carried.engine.tipSha) return;
      this.ctx.push({ type: 'targetBranchMoved', sha: tip });
    });
  }

  private once(subject: string, read: () => Promise<void>): void {
    if (this.reading.has(subject)) {
      this.reading.set(subject, true);
      return;
    }
    this.reading.set(subject, false);
    this.ctx.track(async () => {
      try {
        await read();
      } finally {
        const again = this.reading.get(subject) === true;
        this.reading.delete(subject);
        if (again) this.once(subject, read);
      }
    });
  }
}
