/**
 * Enqueueing a first submission once its PR was read: the PR's metadata enters the queue state and the
 * engine gets `submitted` (plus the target tip when the engine has none yet, and impacted targets that
 * were uploaded before the submission).
 *
 * Invariants: the metadata exists before the `submitted` event is applied, so the PR's first transition
 * can be delivered; early impacted targets are consumed for this PR whatever their head (a later push
 * uploads again); nothing here awaits, so the submit update completes in the task that accepted it
 * (admission.ts).
 */
import type { PullRequestSnapshot } from '../../activities/merge-queue/types';
import { DEFAULT_PRIORITY } from '../../engine';
import type { PrMeta, SubmissionRequest } from './carried';
import { chooseCommitMessage } from '../../contract';
import type { QueueContext } from './context';

/** The host's mergeability as the PR record shows it. */
export function mergeabilityOf(snapshot: PullRequestSnapshot): PrMeta['readiness']['gitHubMergeability'] {
  switch (snapshot.mergeable) {
    case 'mergeable':
      return 'mergeable';
    case 'conflicting':
      return 'not_mergeable';
    case 'unknown':
      return 'unspecified';
  }
}

/** Adds the PR to the queue state and pushes its events; returns the sequence number of the last one. */
export function enqueueSubmission(
  ctx: QueueContext,
  request: SubmissionRequest,
  snapshot: PullRequestSnapshot,
): { meta: PrMeta; seq: number } {
  const { carried: c, key } = ctx;
  const { pr, priority, noBatch } = request;
  const baseBranch = snapshot.baseBranch ?? key.targetBranch;
  const meta: PrMeta = {
    submissionId: request.submissionId,
    title: snapshot.title,
    author: snapshot.author,
    baseBranch,
    explicitPriority: priority !== null,
    readiness: {
      hasImpactedTargets: false,
      requiresImpactedTargets: c.engine.config.mode === 'parallel',
      doesBaseBranchMatch: baseBranch === key.targetBranch,
      gitHubMergeability: mergeabilityOf(snapshot),
      ...(snapshot.blockedBy ? { blockedBy: snapshot.blockedBy } : {}),
    },
    notified: 0,
    submittedAt: Date.now(),
  };
  const commitMessage = chooseCommitMessage(request.commitMessage, snapshot.commitTitle);
  if (commitMessage) meta.commitMessage = commitMessage;
  c.prs[String(pr)] = meta;
  const ready = meta.readiness.gitHubMergeability === 'mergeable' && meta.readiness.doesBaseBranchMatch;
  // The engine learns the target tip from the first PR it sees; later moves come from merges and CAS.
  if (c.engine.tipSha === null && snapshot.targetTipSha)
    ctx.push({ type: 'targetBranchMoved', sha: snapshot.targetTipSha });
  let seq = ctx.push({
    type: 'submitted',
    pr,
    headSha: snapshot.headSha,
    priority: priority ?? DEFAULT_PRIORITY,
    noBatch,
    ready,
    baseSha: snapshot.basedOnTargetTip ? snapshot.targetTipSha : null,
    reason: 'API_REQUESTED',
  });
  // Impacted targets uploaded before the submission (merge-action uploads on every push).
  const early = c.earlyTargets.find((t) => t.pr === pr && t.headSha === snapshot.headSha);
  if (early) {
    meta.readiness.hasImpactedTargets = true;
    seq = ctx.push({ type: 'impactedTargetsSet', pr, headSha: early.headSha, targets: early.targets });
  }
  c.earlyTargets = c.earlyTargets.filter((t) => t.pr !== pr);
  return { meta, seq };
}
