/**
 * D3: which class a result's branch belongs to. Stable names win over merge-queue prefixes, which
 * win over "has a PR number": a merge-queue run may carry the PR it tests, but it ran on a queue
 * branch built from the target tip, which is exactly why it counts towards the stable set.
 */
import { type ClassificationParams } from './params';
import { type BranchClass } from './types';

export function branchClassOf(
  branch: string | undefined,
  prNumber: number | undefined,
  params: Pick<ClassificationParams, 'stableBranches' | 'mergeQueueBranchPrefixes'>,
): BranchClass {
  const name = (branch ?? '').trim().replace(/^refs\/heads\//, '');
  if (name !== '' && params.stableBranches.includes(name)) return 'stable';
  if (name !== '' && params.mergeQueueBranchPrefixes.some((prefix) => name.startsWith(prefix)))
    return 'merge_queue';
  if (prNumber !== undefined) return 'pr';
  return 'other';
}

export function isStableSet(branchClass: BranchClass): boolean {
  switch (branchClass) {
    case 'stable':
    case 'merge_queue':
      return true;
    case 'pr':
    case 'other':
      return false;
  }
}
