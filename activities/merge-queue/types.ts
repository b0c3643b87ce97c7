/**
 * Inputs and results of the merge-queue activities: plain data that crosses the workflow boundary,
 * so the workflow can import these types without importing any implementation. runTestCommand answers
 * the contract's RunCommandResult (workflows/contract/test-run-messages.ts): the test-run workflow hands
 * it to the queue as is.
 */
import type { RepositoryKey } from '../../workflows/contract';

export type MergeMethod = 'merge_commit' | 'squash' | 'rebase';

export interface PullRequestSnapshot {
  found: boolean;
  headSha: string;
  title: string;
  author: string;
  /** Null when the host does not record the PR's base branch (local host). */
  baseBranch: string | null;
  mergeable: 'mergeable' | 'conflicting' | 'unknown';
  targetTipSha: string | null;
  basedOnTargetTip: boolean;
}

export interface BuildRunInput {
  /** The queue's organisation; nothing is written to a repository it does not own. */
  organisationId: string;
  repo: RepositoryKey;
  targetBranch: string;
  runId: string;
  /** The first PR of the run names the branch: railyard-merge/pr-<n>/<runId>. */
  branchPr: number;
  /** The commit to build on: a stacked run's head, or the target tip (null = read it now). */
  buildOnSha: string | null;
  prs: { number: number; headSha: string }[];
  mergeMethod: MergeMethod;
}

export type BuildRunResult =
  | { kind: 'built'; branchName: string; baseSha: string; headSha: string }
  | { kind: 'conflict'; prNumber: number; detail: string }
  | { kind: 'pr_moved'; prNumber: number; actualSha: string }
  | { kind: 'pr_closed'; prNumber: number }
  | { kind: 'no_target'; detail: string };

export interface LandInput {
  /** The queue's organisation; nothing is written to a repository it does not own. */
  organisationId: string;
  repo: RepositoryKey;
  targetBranch: string;
  via: 'tested_commit' | 'rebase' | 'direct';
  /** For tested_commit: the run's head commit. */
  testedSha: string | null;
  expectedTipSha: string | null;
  prs: { number: number; headSha: string }[];
  mergeMethod: MergeMethod;
  /** Names the temporary branch a rebase landing builds. */
  mergeId: string;
}

export type LandResult =
  | { kind: 'landed'; tipSha: string }
  | { kind: 'target_moved'; tipSha: string | null }
  | {
      kind: 'pr_problem';
      prNumber: number;
      reason: 'PR_UPDATED_AT_MERGE_TIME' | 'PR_CLOSED' | 'MERGE_CONFLICT_AT_MERGE_TIME';
    }
  | {
      kind: 'rejected';
      reason: 'GITHUB_API_MERGE_PR_FAILED' | 'GITHUB_API_DIRECT_MERGE_PR_FAILED';
      detail: string;
    };

export interface RunCommandInput {
  /** Whose flaky-test data judges the run's JUnit results (quarantine). */
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  branchName: string;
  headSha: string;
  timeoutMs: number;
}
