/**
 * Landing commits on the target branch: the only code that moves a target. Rules:
 *  - compare-and-swap from the tip the commit was built on, so a push made meanwhile is detected
 *    (`moved`) and never overwritten;
 *  - only forward: the new commit must descend from that tip (otherwise `rejected`, with Trunk's
 *    GITHUB_API_MERGE_PR_FAILED, since it can only be a caller bug);
 *  - idempotent: a target already at the new commit, or already past it (someone pushed on top after
 *    an earlier attempt succeeded), counts as advanced. Commits railyard builds are specific to one
 *    run, so finding one under the target means that run landed.
 */
import { isAncestor, type RepoAccess } from './commits';
import { composePullRequests, headCheckOf } from './compose';
import type {
  AdvanceTargetInput,
  AdvanceTargetResult,
  DirectMergeInput,
  DirectMergeResult,
} from './git-host';
import { branchRef, pullRequestRef } from './names';
import { lookUp } from './object-lookups';
import { compareAndSwap } from './refs';

export async function advanceTarget(
  access: RepoAccess,
  input: AdvanceTargetInput,
): Promise<AdvanceTargetResult> {
  const ref = branchRef(input.targetBranch);
  const { expectedSha, newSha } = input;
  const prs = input.prs ?? [];
  // The target's tip, whether the new commit exists and the PRs' heads, read by one git process
  // (object-lookups.ts); the compare-and-swap below still guards the target against any move since.
  const [tip, landing, ...heads] = await lookUp(access, [
    { kind: 'info', name: `${ref}^{commit}` },
    { kind: 'info', name: `${newSha}^{commit}` },
    ...prs.map((pr) => ({ kind: 'info' as const, name: `${pullRequestRef(pr.number)}^{commit}` })),
  ]);
  const current = tip?.kind === 'found' ? tip.sha : null;
  const newShaExists = landing?.kind === 'found';
  if (current === newSha) return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
  if (current !== expectedSha) {
    if (current !== null && newShaExists && (await isAncestor(access, newSha, current))) {
      return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
    }
    return { kind: 'moved', expectedSha, actualSha: current };
  }
  if (!newShaExists) {
    return {
      kind: 'rejected',
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      detail: `${newSha} is not a commit of this repository`,
    };
  }
  for (const [i, pr] of prs.entries()) {
    const answer = heads[i];
    const head = headCheckOf(pr, answer?.kind === 'found' ? answer.sha : null);
    if (head.kind === 'closed') return { kind: 'pr_closed', prNumber: pr.number, reason: 'PR_CLOSED' };
    if (head.kind === 'moved') {
      const { number: prNumber, headSha } = pr;
      return {
        kind: 'pr_moved',
        prNumber,
        expectedSha: headSha,
        actualSha: head.actualSha,
        reason: 'PR_UPDATED_AT_MERGE_TIME',
      };
    }
  }
  if (!(await isAncestor(access, expectedSha, newSha))) {
    return {
      kind: 'rejected',
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      detail: `${newSha} does not descend from ${expectedSha}`,
    };
  }
  const swap = await compareAndSwap(access, ref, expectedSha, newSha, 'railyard: merge tested commit');
  switch (swap.kind) {
    case 'swapped':
      return { kind: 'advanced', sha: newSha, alreadyAdvanced: false };
    case 'already':
      return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
    case 'moved':
      return { kind: 'moved', expectedSha, actualSha: swap.actualSha };
    default: {
      const never: never = swap;
      throw new Error(`unexpected ref update ${JSON.stringify(never)}`);
    }
  }
}

/** Builds the PR on the expected tip with the merge method (as a test branch would) and lands it. */
export async function directMerge(access: RepoAccess, input: DirectMergeInput): Promise<DirectMergeResult> {
  const { expectedTargetSha: expectedSha, pr } = input;
  const composed = await composePullRequests(access, expectedSha, [pr], input.mergeMethod);
  if (composed.kind !== 'composed') return composed;
  const landed = await advanceTarget(access, { ...input, expectedSha, newSha: composed.headSha, prs: [pr] });
  return directMergeResultOf(landed);
}

/** A direct merge's outcome from the landing it made (both hosts land a direct merge this way). */
export function directMergeResultOf(landed: AdvanceTargetResult): DirectMergeResult {
  switch (landed.kind) {
    case 'advanced':
      return { kind: 'merged', sha: landed.sha, alreadyMerged: landed.alreadyAdvanced };
    case 'moved':
      return landed;
    case 'pr_moved':
      return { ...landed, reason: 'PR_PUSHED_TO' };
    case 'pr_closed':
      return landed;
    case 'rejected':
      return { kind: 'rejected', reason: 'GITHUB_API_DIRECT_MERGE_PR_FAILED', detail: landed.detail };
    default: {
      const never: never = landed;
      throw new Error(`unexpected landing ${JSON.stringify(never)}`);
    }
  }
}
