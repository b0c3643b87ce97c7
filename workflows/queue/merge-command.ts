/**
 * The engine's `merge` command, run by the queue (glossary: landing): land the tested commit
 * (compare-and-swap on the target), rebase onto a moved tip (parallel lanes), or merge directly, then
 * report `mergeDone` or `mergeFailed` to the engine.
 *
 * Rules: every outcome of the land activity becomes exactly one engine event (a PR closed under the
 * merge also leaves the queue as cancelled); an activity that keeps failing reports the merge failed
 * without blame, so the engine decides again (landing is idempotent by its merge id). A landing's proof
 * (tested and landed trees) is kept with its PRs for their `merged` transition.
 */
import { log } from '@temporalio/workflow';
import type { LandingProof } from '../../activities/merge-queue/types';
import type { EngineCommand } from '../../engine';
import { MAX_DETAIL_TEXT } from '../../contract';
import type { QueueContext } from './context';
import { passedWithLanding } from './passed-with-landing';
import { prsToApply } from './prs-to-apply';

export function runMerge(ctx: QueueContext, cmd: Extract<EngineCommand, { type: 'merge' }>): void {
  const { carried: c, key } = ctx;
  const run = cmd.runId ? c.runs.find((r) => r.runId === cmd.runId) : undefined;
  ctx.track(
    async () => {
      const r = await ctx.git.land(
        {
          organisationId: key.organisationId,
          repo: key.repo,
          targetBranch: key.targetBranch,
          via: cmd.via,
          testedSha: run?.headSha ?? null,
          ...(run?.headTree ? { testedTree: run.headTree } : {}),
          expectedTipSha: cmd.expectedTipSha,
          prs: prsToApply(ctx, cmd.prs),
          mergeMethod: cmd.method,
          mergeId: cmd.mergeId,
          ...(c.runner.landingMode ? { landing: c.runner.landingMode } : {}),
          testBranchPrefix: c.runner.testBranchPrefix ?? null,
        },
        // Its PRs' `tests_passed` notices go with their `merged` ones, after it.
        passedWithLanding(cmd.prs),
      );
      switch (r.kind) {
        case 'landed':
          if (r.warning)
            log.error('landed a tree other than the tested one', {
              mergeId: cmd.mergeId,
              warning: r.warning,
            });
          if (r.proof) recordLanding(ctx, cmd.prs, r.tipSha, r.proof);
          ctx.push({ type: 'mergeDone', mergeId: cmd.mergeId, newTipSha: r.tipSha });
          return;
        case 'target_moved':
          ctx.push({
            type: 'mergeFailed',
            mergeId: cmd.mergeId,
            reason: 'TARGET_BRANCH_MOVED',
            pr: null,
            mergedPrs: [],
            tipSha: r.tipSha,
          });
          return;
        case 'pr_problem':
          // A PR closed under the merge leaves the queue as cancelled; the merge then fails without blame on it.
          if (r.reason === 'PR_CLOSED') ctx.push({ type: 'cancelled', pr: r.prNumber, reason: 'PR_CLOSED' });
          ctx.push({
            type: 'mergeFailed',
            mergeId: cmd.mergeId,
            reason: r.reason === 'PR_CLOSED' ? 'GITHUB_API_MERGE_PR_FAILED' : r.reason,
            pr: r.prNumber,
            mergedPrs: [],
            tipSha: null,
          });
          return;
        case 'rejected':
          log.warn('landing refused', { mergeId: cmd.mergeId, detail: r.detail });
          // The trees behind a refused landing go into the failed PR's record (reason-details.ts).
          if (r.reason === 'LANDED_TREE_DIFFERS' && run)
            run.detail = { kind: 'problem', text: r.detail.slice(0, MAX_DETAIL_TEXT) };
          ctx.push({
            type: 'mergeFailed',
            mergeId: cmd.mergeId,
            reason: r.reason,
            pr: cmd.prs.find((pr) => !(r.merged?.prs ?? []).includes(pr)) ?? cmd.prs[0] ?? null,
            mergedPrs: r.merged?.prs ?? [],
            tipSha: r.merged?.tipSha ?? null,
          });
          return;
      }
    },
    () => {
      // Git kept failing: report the merge failed so the engine decides again (landing is idempotent).
      ctx.push({
        type: 'mergeFailed',
        mergeId: cmd.mergeId,
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        pr: null,
        mergedPrs: [],
        tipSha: null,
      });
    },
  );
}

/**
 * Keeps a landing's proof with its PRs for their `merged` transition (reason-details.ts), and says
 * so in the log when the target did not hold the tested tree right after the landing.
 */
function recordLanding(ctx: QueueContext, prs: number[], sha: string, proof: LandingProof): void {
  for (const pr of prs) {
    const meta = ctx.carried.prs[String(pr)];
    if (meta) meta.landing = { sha, ...proof };
  }
  if (proof.testedTree !== null && !proof.rebased && proof.landedTree !== proof.testedTree)
    log.error('landed tree differs from the tested tree', {
      prs,
      sha,
      testedTree: proof.testedTree,
      landedTree: proof.landedTree,
    });
}
