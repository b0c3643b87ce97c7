/**
 * Checks of the GitHost port's composite inputs, run before any git process starts. Each throws
 * `InvalidGitNameError` (a caller bug or a hostile request) naming the offending field.
 */
import type {
  AdvanceTargetInput,
  BuildTestBranchInput,
  DirectMergeInput,
  PullRequestAtSha,
} from './git-host';
import { MAX_AVOID_SHAS } from '../contract/avoid-shas';
import {
  InvalidGitNameError,
  TEST_BRANCH_PREFIX,
  assertValid,
  checkBranchName,
  checkPullRequestNumber,
  checkSha,
} from './names';

export function checkPullRequests(prs: readonly PullRequestAtSha[]): void {
  for (const pr of prs) {
    assertValid('pull request number', checkPullRequestNumber(pr.number));
    assertValid(`head sha of pull request #${pr.number}`, checkSha(pr.headSha));
  }
}

/** Test branches live under the host's prefix: nothing else is built or deleted through the port. */
export function checkTestBranch(branch: string, prefix: string = TEST_BRANCH_PREFIX): void {
  assertValid('test branch', checkBranchName(branch));
  if (!branch.startsWith(prefix)) {
    throw new InvalidGitNameError('test branch', `must start with ${prefix}`);
  }
}

export function checkBuildInput(input: BuildTestBranchInput, prefix: string = TEST_BRANCH_PREFIX): void {
  assertValid('target branch', checkBranchName(input.targetBranch));
  assertValid('baseSha', checkSha(input.baseSha));
  checkTestBranch(input.branchName, prefix);
  if (input.prs.length === 0) throw new Error('a test branch needs at least one pull request');
  checkPullRequests(input.prs);
  if (input.underneath) {
    assertValid('underneath.targetSha', checkSha(input.underneath.targetSha));
    checkPullRequests(input.underneath.prs);
  }
  const avoid = input.avoidShas ?? [];
  if (avoid.length > MAX_AVOID_SHAS)
    throw new InvalidGitNameError('avoidShas', `has more than ${MAX_AVOID_SHAS} entries`);
  for (const sha of avoid) assertValid('avoidShas', checkSha(sha));
}

export function checkAdvanceInput(input: AdvanceTargetInput): void {
  assertValid('target branch', checkBranchName(input.targetBranch));
  assertValid('expectedSha', checkSha(input.expectedSha));
  assertValid('newSha', checkSha(input.newSha));
  checkPullRequests(input.prs ?? []);
}

export function checkDirectMergeInput(input: DirectMergeInput): void {
  assertValid('target branch', checkBranchName(input.targetBranch));
  assertValid('expectedTargetSha', checkSha(input.expectedTargetSha));
  checkPullRequests([input.pr]);
}
