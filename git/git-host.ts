/**
 * The `GitHost` port: the only calls the merge queue makes to the place repositories live. Adapters:
 * `local` (bare repositories on disk, local-git-host.ts) and later `github`.
 *
 * Rules every adapter keeps:
 *  - Outcomes the workflow acts on are result kinds (a conflict, a pushed or closed PR, a moved
 *    target), carrying Trunk's reason names where Trunk has one. Only infrastructure failures and
 *    caller bugs (an invalid name: `InvalidGitNameError`) throw.
 *  - Every call is idempotent, because an activity may run twice: building the same test branch again
 *    gives the same commits, advancing a target that is already at the new commit succeeds, deleting a
 *    missing branch succeeds.
 *  - The tested commit is exactly what lands: a test branch is built with the queue's merge method on
 *    the base it was given, and the target branch only moves to a commit of that branch by
 *    compare-and-swap from that base.
 */
import type { CommitMessage, CommitStatusReport, RepositoryKey } from '../contract';

export type MergeMethod = 'merge_commit' | 'squash' | 'rebase';

/**
 * How a host with an API lands (docs/github.md): `push` moves the target to the tested commit by a
 * compare-and-swap push; `api` asks the host to merge each PR (GitHub's merge endpoint) and checks that
 * the result has the tested tree. The local host always pushes.
 */
export type LandingMode = 'push' | 'api';

/** The checks a run must pass when the queue names none; null from hosts without checks (local). */
export type RequiredChecks =
  | { kind: 'found'; contexts: string[]; source: 'trunk_config' | 'branch_protection' }
  | { kind: 'none' }
  | { kind: 'invalid'; detail: string };

/** Trunk's `gitHubMergeability`, reduced to what a trial merge can say. */
export type Mergeability = 'mergeable' | 'conflicting' | 'unknown';

export interface PullRequestInfo {
  number: number;
  headSha: string;
  /** The subject of the head commit on the local host. */
  title: string;
  /** The author name of the head commit on the local host. */
  author: string;
  authorEmail: string;
  /** `closed` and `merged` come from hosts that keep closed PRs; the local host deletes the ref instead. */
  state: 'open' | 'closed' | 'merged';
  /** The branch the PR asks to merge into, or null when the host does not record one (local). */
  baseBranch: string | null;
  /** The target branch's tip when the PR was read, or null when that branch does not exist. */
  targetTipSha: string | null;
  /** Whether the PR merges into the target tip without conflict (a trial merge, nothing written). */
  mergeability: Mergeability;
  conflictFiles: string[];
  /** The target tip is an ancestor of the head: the PR is based on the current tip (direct merge). */
  basedOnTargetTip: boolean;
  /** Why the host will not merge it yet, as a sentence; absent when it would or cannot say. */
  blockedBy?: string;
  /** Set when the PR's head is one of railyard's own test branches (this one): never queued. */
  testBranch?: string;
  /** The title its description asks for (`merge-commit-title:`), when it asks (contract/commit-message.ts). */
  commitTitle?: string;
}

export type PullRequestLookup =
  | { kind: 'found'; pullRequest: PullRequestInfo }
  | { kind: 'not_found'; what: 'repository' | 'pull_request' };

export type BranchTipLookup =
  { kind: 'found'; sha: string } | { kind: 'not_found'; what: 'repository' | 'branch' };

export interface PullRequestAtSha {
  number: number;
  headSha: string;
  /** Its landed commit's title and body over the template (squash, merge commit); contract/commit-message.ts. */
  commitMessage?: CommitMessage;
}

export interface BuildTestBranchInput {
  repo: RepositoryKey;
  targetBranch: string;
  /** The target tip the run is built on. */
  baseSha: string;
  /** In queue order; each is applied on top of the previous ones. */
  prs: PullRequestAtSha[];
  mergeMethod: MergeMethod;
  /** `<prefix>pr-<n>/<runId>` (names.testBranchName); other names are refused. */
  branchName: string;
  /** The queue's own test-branch prefix; absent = the host's. */
  branchPrefix?: string;
  /**
   * Draft-PR testing mode (createPrsForTestingBranches): also open a draft PR from the branch into
   * the target, so `pull_request` CI runs on it. Hosts without PRs (local) ignore it.
   */
  testPullRequest?: { runId: string; prs: number[] };
  /**
   * A stacked build: `baseSha` is another run's head, which holds these PRs on the target tip
   * `targetSha`. Read only to name the PR ahead a conflict clashes with (clash.ts); absent: `baseSha`
   * is the target tip and the PRs ahead are the first of `prs`.
   */
  underneath?: { targetSha: string; prs: PullRequestAtSha[] };
  /**
   * The heads of the runs the queue carries (at most contract's MAX_AVOID_SHAS): a composition giving one of
   * them has its last commit rewritten with the same tree and a later committer date (fresh-head.ts),
   * so CI's checks on the branch's head are this run's own (issue 28).
   */
  avoidShas?: string[];
}

/** The commit after each PR was applied: advancing the target to `steps[i].sha` lands PRs 0..i. */
export interface MergeStep {
  prNumber: number;
  sha: string;
}

/** Why a PR cannot be applied; shared by building, direct merges and advancing. */
export type PullRequestProblem =
  | {
      kind: 'conflict';
      prNumber: number;
      reason: 'START_TEST_RUN_MERGE_CONFLICT';
      detail: string;
      files: string[];
      /** The PRs ahead whose own changes touch `files` (clash.ts); [] = none, the target's; absent = not told. */
      clashesWith?: number[];
    }
  | { kind: 'pr_moved'; prNumber: number; expectedSha: string; actualSha: string; reason: 'PR_PUSHED_TO' }
  | { kind: 'pr_closed'; prNumber: number; reason: 'PR_CLOSED' };

export type BuildTestBranchResult =
  | {
      kind: 'built';
      branchName: string;
      baseSha: string;
      headSha: string;
      steps: MergeStep[];
      /** The draft PR opened from the branch (testPullRequest), when the host opened one. */
      pullRequest?: number;
    }
  | PullRequestProblem;

export interface AdvanceTargetInput {
  repo: RepositoryKey;
  targetBranch: string;
  /** The tip the new commit was built on; the update happens only if the target is still there. */
  expectedSha: string;
  /** A descendant of expectedSha, normally a test branch's head or one of its steps. */
  newSha: string;
  /** When given, each PR's head must still be at the tested sha (GitHub refuses to merge otherwise). */
  prs?: PullRequestAtSha[];
  /** Needed by the `api` landing mode; `push` by default. */
  landing?: LandingMode;
  mergeMethod?: MergeMethod;
}

export type AdvanceTargetResult =
  | {
      kind: 'advanced';
      sha: string;
      alreadyAdvanced: boolean;
      /** Set when the host wrote something other than the tested tree (api landing); never hidden. */
      warning?: string;
    }
  | { kind: 'moved'; expectedSha: string; actualSha: string | null }
  | {
      kind: 'pr_moved';
      prNumber: number;
      expectedSha: string;
      actualSha: string;
      reason: 'PR_UPDATED_AT_MERGE_TIME';
    }
  | { kind: 'pr_closed'; prNumber: number; reason: 'PR_CLOSED' }
  | {
      kind: 'rejected';
      reason: 'GITHUB_API_MERGE_PR_FAILED';
      detail: string;
      /** PRs of a batch the host merged before it refused one (api landing), and the tip after them. */
      merged?: { prs: number[]; tipSha: string };
    };

export interface DirectMergeInput {
  repo: RepositoryKey;
  targetBranch: string;
  /** The target tip the PR was found to be based on. */
  expectedTargetSha: string;
  pr: PullRequestAtSha;
  mergeMethod: MergeMethod;
  landing?: LandingMode;
}

export type DirectMergeResult =
  | { kind: 'merged'; sha: string; alreadyMerged: boolean }
  | { kind: 'moved'; expectedSha: string; actualSha: string | null }
  | { kind: 'rejected'; reason: 'GITHUB_API_DIRECT_MERGE_PR_FAILED'; detail: string }
  | PullRequestProblem;

export type DeleteBranchResult = { kind: 'deleted' } | { kind: 'already_absent' };

/** The preflight's throw-away test branch (issue 28; workflows/preflight). */
export interface PreflightBranchInput {
  repo: RepositoryKey;
  /** The target branch's tip: the branch holds one commit on it with its tree. */
  baseSha: string;
  /** `<prefix>preflight/<id>`; other names are refused. */
  branchName: string;
  /** The queue's own test-branch prefix; absent = the host's. */
  branchPrefix?: string;
  /**
   * Draft-PR testing mode: also open a draft PR from the branch into this branch (hosts with PRs; the
   * local host opens none). deleteBranch closes it.
   */
  draftPullRequestInto?: string;
}

/** The preflight branch as pushed: its commit, and its draft PR in draft-PR testing mode (when opened). */
export interface PreflightBranchPush {
  sha: string;
  /** The draft PR from the branch into the target: its number and its page on the host. */
  draftPullRequest?: { number: number; url: string };
}

/**
 * The host refused the preflight branch's draft PR (draft-PR testing mode) for a reason a retry cannot
 * change (GitHub's 4xx: draft PRs not available in the repository, the App lacking pull_requests:
 * write). The branch was deleted again before this was thrown. `hostSays`: the host's own words,
 * bounded, never a credential.
 */
export class DraftPullRequestRefusedError extends Error {
  override readonly name = 'DraftPullRequestRefusedError';
  constructor(
    readonly status: number,
    readonly hostSays: string,
  ) {
    super(`the host refused the draft pull request (${status}): ${hostSays}`);
  }
}

/**
 * The host did not open the preflight branch's draft PR for a reason a later attempt may not share
 * (GitHub's 5xx, a rate limit, no answer at all). The branch was deleted again before this was thrown.
 * `status`: the host's HTTP status, null when it did not answer; `hostSays`: its words or the network
 * error, bounded, never a credential.
 */
export class DraftPullRequestUnavailableError extends Error {
  override readonly name = 'DraftPullRequestUnavailableError';
  constructor(
    readonly status: number | null,
    readonly hostSays: string,
  ) {
    super(`the host did not open the draft pull request (${status ?? 'no answer'}): ${hostSays}`);
  }
}

/** A draft PR railyard opened from one of its test branches (draft-PR testing mode). */
export interface TestPullRequest {
  number: number;
  branchName: string;
  /** The test run the branch is of (`<prefix>pr-<n>/<runId>`). */
  runId: string;
}

export type FileLookup = { kind: 'found'; content: string } | { kind: 'not_found' };

export interface CheckoutInput {
  repo: RepositoryKey;
  sha: string;
  /** Must not exist yet; the caller removes it when done. */
  directory: string;
  /**
   * False: HEAD detached at `sha` and no file of it written, for a caller that only bundles the commit
   * (the worker staging a run's content); default true, the files written (run-clone.ts).
   */
  workTree?: boolean;
}

export interface GitHost {
  /** Test branches on this host start with it (`railyard-merge/` locally, `trunk-merge/` on GitHub). */
  testBranchPrefix(repo: RepositoryKey): string;
  readPullRequest(repo: RepositoryKey, number: number, targetBranch: string): Promise<PullRequestLookup>;
  readBranchTip(repo: RepositoryKey, branch: string): Promise<BranchTipLookup>;
  /**
   * The tree the host itself holds for a commit (the local bare repository; GitHub's git data API), or
   * null when it has no such commit: what the target branch would hold if moved there (landing proof).
   */
  commitTree(repo: RepositoryKey, sha: string): Promise<string | null>;
  /**
   * Whether `sha` is on `branch` (its tip or an ancestor of it); false when the branch is gone. The
   * landing check asks it of each recent landing: a landed commit that left the branch was rewritten.
   */
  branchContains(repo: RepositoryKey, branch: string, sha: string): Promise<boolean>;
  buildTestBranch(input: BuildTestBranchInput): Promise<BuildTestBranchResult>;
  advanceTarget(input: AdvanceTargetInput): Promise<AdvanceTargetResult>;
  /** Merges one PR straight onto the target tip (directMergeMode = always), with compare-and-swap. */
  directMerge(input: DirectMergeInput): Promise<DirectMergeResult>;
  /**
   * Deletes a test branch (names under the host's prefix, or `prefix` when the queue has its own),
   * closing the PRs opened from it first (draft-PR testing mode).
   */
  deleteBranch(repo: RepositoryKey, branch: string, prefix?: string): Promise<DeleteBranchResult>;
  /**
   * Pushes the preflight's throw-away test branch: one new commit with the base's tree on `baseSha` (a
   * commit of its own, so no check CI reported for the target's tip counts as started on it). Removed
   * with deleteBranch. Idempotent: a branch already holding such a commit on that base answers it.
   * With `draftPullRequestInto`, a draft PR the host refuses throws DraftPullRequestRefusedError, one it
   * could not open now (5xx, rate limit, no answer) DraftPullRequestUnavailableError.
   */
  pushPreflightBranch(input: PreflightBranchInput): Promise<PreflightBranchPush>;
  /**
   * railyard's open test PRs into `targetBranch` from branches under `prefix` (the host's when absent),
   * for the reconciliation to close those of runs no longer in progress; [] on hosts without PRs.
   */
  listTestPullRequests(
    repo: RepositoryKey,
    targetBranch: string,
    prefix?: string,
  ): Promise<TestPullRequest[]>;
  /** One file of one commit, e.g. the repository's test configuration. */
  readFileAtCommit(repo: RepositoryKey, sha: string, path: string): Promise<FileLookup>;
  /** A working tree of one commit in a new directory, for the `command` test runner. */
  checkout(input: CheckoutInput): Promise<void>;
  /** Whether the host keeps CI results (readChecks answers); false: statuses come through the API. */
  hasChecks(repo: RepositoryKey): Promise<boolean>;
  /** What CI reported for a commit; null from hosts that keep no results (statuses come by API). */
  readChecks(repo: RepositoryKey, sha: string): Promise<CommitStatusReport[] | null>;
  /** The checks a run of `sha` must pass when its queue names none; null when the host has no checks. */
  requiredChecks(repo: RepositoryKey, targetBranch: string, sha: string): Promise<RequiredChecks | null>;
}
