/**
 * Inputs and results of the merge-queue activities: plain data that crosses the workflow boundary,
 * so the workflow can import these types without importing any implementation. runTestCommand answers
 * the contract's RunCommandResult (contract/test-run-messages.ts): the test-run workflow hands
 * it to the queue as is.
 */
import type { CommitMessage, CommitStatusReport, RepositoryKey, TestRunWorkflowInput } from '../../contract';

export type MergeMethod = 'merge_commit' | 'squash' | 'rebase';
export type LandingMode = 'push' | 'api';

export interface PullRequestSnapshot {
  /** Open on the host (closed and merged PRs read as not found). */
  found: boolean;
  /** Hosts that keep closed PRs say how they ended; absent from older recorded results. */
  state?: 'open' | 'closed' | 'merged' | 'absent';
  headSha: string;
  title: string;
  author: string;
  /** Null when the host does not record the PR's base branch (local host). */
  baseBranch: string | null;
  mergeable: 'mergeable' | 'conflicting' | 'unknown';
  targetTipSha: string | null;
  basedOnTargetTip: boolean;
  /** Why the host will not merge it yet, when it says (GitHub); absent when it would, or cannot say. */
  blockedBy?: string;
  /** The PR's head is one of railyard's own test branches (a draft test PR): it is never queued. */
  testBranch?: string;
  /** The landed commit's title its description asks for (`merge-commit-title:`), when it asks. */
  commitTitle?: string;
}

/** A PR as a build or a landing applies it: its tested head, and its own commit message if any. */
export interface PullRequestToApply {
  number: number;
  headSha: string;
  commitMessage?: CommitMessage;
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
  prs: PullRequestToApply[];
  /**
   * A stacked run's PRs ahead, already in `buildOnSha`, in queue order: read only on a conflict, to
   * name the PR ahead it clashes with (git/clash.ts). Absent: the PRs ahead are the first of `prs`.
   */
  underneath?: PullRequestToApply[];
  mergeMethod: MergeMethod;
  /**
   * The queue names its required statuses itself; otherwise a host with checks (GitHub) says which
   * checks the run needs, from the tested commit's `.trunk/trunk.yaml` or the target's protection.
   */
  queueNamesChecks?: boolean;
  /** The queue's test-branch prefix; null or absent = the host's (`trunk-merge/` on GitHub). */
  testBranchPrefix?: string | null;
  /**
   * Draft-PR testing mode (the queue's createPrsForTestingBranches): also open a draft PR from the
   * branch, named after these PRs (the run's own). Hosts without PRs (local) open none.
   */
  testPullRequest?: { prs: number[] };
  /**
   * The command runner's test-run workflow, started by the activity once the branch is built when no
   * checks decide the run (RunChecks absent), instead of by the queue workflow as a child (issue 25: a
   * child's start and end cost the queue's history three events and two workflow tasks). Absent: the
   * queue tests the branch some other way (CI statuses) or starts the run itself.
   */
  testRun?: TestRunStart;
  /**
   * The heads of the runs the queue carries (issue 28): the branch's head is never one of them, so
   * checks on it are this run's (git/fresh-head.ts). Absent: as composed.
   */
  avoidShas?: string[];
}

/** What the test-run workflow is started with; the activity adds the branch and commit it built. */
export interface TestRunStart {
  workflowId: string;
  taskQueue: string;
  staticSummary: string;
  input: Omit<TestRunWorkflowInput, 'branchName' | 'headSha'>;
}

/** Which checks a run on a host with checks must pass (absent: the host has none, run the command). */
export type RunChecks =
  | { kind: 'required'; contexts: string[]; source: 'trunk_config' | 'branch_protection' }
  /** The host keeps checks, and the queue's requiredStatuses decide: read them from the host too. */
  | { kind: 'queue' }
  | {
      kind: 'problem';
      reason: 'START_TEST_RUN_NO_REQUIRED_STATUSES' | 'START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES';
      detail: string;
    };

export type BuildRunResult =
  | {
      kind: 'built';
      branchName: string;
      baseSha: string;
      headSha: string;
      /** The host's tree of headSha when built: what the run tests (landing proof). Absent in older results. */
      headTree?: string;
      checks?: RunChecks;
      /** The test-run workflow `testRun` asked for runs (started now, or by an earlier attempt). */
      testRunStarted?: boolean;
      /**
       * The PRs whose `testing` notice rode along and was delivered after the build, carrying the
       * commit it built (held-testing-notices.ts): the queue sends them no refresh for it.
       */
      testedOnNoticed?: number[];
    }
  /**
   * `files`: where it conflicted (absent from results recorded before they were kept); `clashesWith`:
   * the PRs ahead whose changes touch them ([] = the target branch's; absent = not told, git/clash.ts).
   */
  | { kind: 'conflict'; prNumber: number; detail: string; files?: string[]; clashesWith?: number[] }
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
  /**
   * The tree of the run's head recorded when it was built (BuildRunResult.headTree): a tested-commit
   * landing is refused when the host's commit to land holds another tree. Absent in older inputs.
   */
  testedTree?: string | null;
  expectedTipSha: string | null;
  prs: PullRequestToApply[];
  mergeMethod: MergeMethod;
  /** Names the temporary branch a rebase landing builds. */
  mergeId: string;
  /** How a host with an API lands (GitHub); `push` when absent. */
  landing?: LandingMode;
  testBranchPrefix?: string | null;
}

/**
 * A landing's proof (docs/git-host.md, "Landing proof"): the tree the passing run tested (null: no
 * run, a direct merge), the tree the target held when read back right after the landing (null: it could
 * not be read), and whether the PRs were applied onto a tip another lane moved (rebase landing).
 */
export interface LandingProof {
  testedTree: string | null;
  landedTree: string | null;
  rebased: boolean;
}

export type LandResult =
  /**
   * `warning`: the host wrote a tree other than the tested one (api landing); it is reported, not
   * hidden. `proof`: absent from results recorded before it existed.
   */
  | { kind: 'landed'; tipSha: string; warning?: string; proof?: LandingProof }
  | { kind: 'target_moved'; tipSha: string | null }
  | {
      kind: 'pr_problem';
      prNumber: number;
      reason: 'PR_UPDATED_AT_MERGE_TIME' | 'PR_CLOSED' | 'MERGE_CONFLICT_AT_MERGE_TIME';
    }
  | {
      kind: 'rejected';
      reason: 'GITHUB_API_MERGE_PR_FAILED' | 'GITHUB_API_DIRECT_MERGE_PR_FAILED' | 'LANDED_TREE_DIFFERS';
      detail: string;
      /** PRs the host merged before it refused one (api landing of a batch), with the tip after them. */
      merged?: { prs: number[]; tipSha: string };
    };

/** What CI reported for one commit on the host; null = the host keeps no checks (local). */
export type ChecksReading = CommitStatusReport[] | null;

export interface RunCommandInput {
  /** Whose flaky-test data judges the run's JUnit results (quarantine). */
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  branchName: string;
  headSha: string;
  timeoutMs: number;
  /** The queue's target branch, for where failed tests last passed (issue 28); absent in older inputs. */
  targetBranch?: string;
}
