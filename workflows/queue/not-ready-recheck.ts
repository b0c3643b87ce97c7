/**
 * The not-ready recheck: a PR the engine holds as `not_ready` (not mergeable when it was read) is read
 * again every RECHECK_INTERVAL_MS, since its mergeability can change without the queue being told.
 * Now mergeable: `ready`; pushed to: cancelled with PR_PUSHED_TO; closed: cancelled with PR_CLOSED.
 * The mergeability read is kept in the PR's readiness either way, for its record.
 *
 * Invariants: a recheck is due only while some entry is not ready; the reads are tracked work (so
 * continue-as-new waits for them) and reach the engine only as events.
 */
import type { QueueContext } from './context';
import { mergeabilityOf } from './enqueue';

const RECHECK_INTERVAL_MS = 15_000;

export class NotReadyRecheck {
  private lastRecheck = Date.now();

  constructor(private readonly ctx: QueueContext) {}

  /** When not-ready PRs should next be read again; null while there are none. */
  nextAt(): number | null {
    return this.ctx.carried.engine.entries.some((e) => e.state === 'not_ready')
      ? this.lastRecheck + RECHECK_INTERVAL_MS
      : null;
  }

  run(): void {
    const { carried, key } = this.ctx;
    this.lastRecheck = Date.now();
    for (const entry of carried.engine.entries.filter((e) => e.state === 'not_ready')) {
      const meta = carried.prs[String(entry.pr)];
      this.ctx.track(async () => {
        const s = await this.ctx.git.readPullRequest({
          repo: key.repo,
          targetBranch: key.targetBranch,
          pr: entry.pr,
        });
        if (!s.found) this.ctx.push({ type: 'cancelled', pr: entry.pr, reason: 'PR_CLOSED' });
        else if (s.headSha !== entry.headSha)
          this.ctx.push({ type: 'cancelled', pr: entry.pr, reason: 'PR_PUSHED_TO' });
        else {
          if (meta) {
            meta.readiness.gitHubMergeability = mergeabilityOf(s);
            const before = meta.readiness.blockedBy;
            meta.readiness.blockedBy = s.blockedBy;
            // A waiting PR's record (and its live comment) says the new reason at once.
            if (before !== s.blockedBy && s.mergeable !== 'mergeable') this.ctx.refreshDetails(entry.pr);
          }
          if (s.mergeable === 'mergeable' && !entry.ready)
            this.ctx.push({
              type: 'ready',
              pr: entry.pr,
              headSha: s.headSha,
              baseSha: s.basedOnTargetTip ? s.targetTipSha : null,
            });
        }
      });
    }
  }
}
