/**
 * The merge queue's git activities over the GitHost port: read a PR, build a test branch (with its
 * draft PR in draft-PR testing mode, and the command runner's test-run workflow started on it), land
 * tested commits on the target branch, delete test branches, list railyard's test PRs. Each is
 * idempotent (the port guarantees it; a test run is started once per id) and turns outcomes the
 * workflow acts on into result kinds; invalid names from requests become non-retryable failures, since
 * retrying cannot fix them. Each heartbeats while it runs. The queue's side effects may ride along with
 * a read, a build (which holds its testing notices: held-testing-notices.ts) or a landing (ADR 0028).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import type { GitHost, TestPullRequest } from '../../git/git-host';
import type { RepositoryOwnership } from '../../stores/repository-owners';
import { heartbeating } from '../heartbeat';
import { performNoSideEffects, riding } from '../side-effects/riding';
import { heldTestingNotices } from './held-testing-notices';
import type { SideEffectsInput, SideEffectsResult } from '../side-effects/types';
import { assertValid, checkBranchName, InvalidGitNameError, testBranchName } from '../../git/names';
import type {
  BuildRunInput,
  BuildRunResult,
  ChecksReading,
  LandInput,
  LandResult,
  LandingProof,
  PullRequestSnapshot,
  RunChecks,
  TestRunStart,
} from './types';

/** Well inside the git activities' heartbeat timeout (10 s, workflows/queue/activity-proxies.ts). */
const HEARTBEAT_MS = 1_000;

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidGitNameError)
      throw ApplicationFailure.nonRetryable(err.message, 'InvalidGitName');
    throw err;
  }
}

/** Why a queue may not write to a repository: it belongs to another organisation (ADR 0006). */
const notOwned = (repo: RepositoryKey) =>
  `Repository ${repositoryLabel(repo)} does not belong to this queue's organisation; nothing was written to it.`;

/** The queue's test-branch prefix (checked like a branch name), else the host's. */
function prefixOn(
  gitHost: GitHost,
  input: { repo: RepositoryKey; testBranchPrefix?: string | null },
): string {
  const prefix = input.testBranchPrefix || gitHost.testBranchPrefix(input.repo);
  assertValid('test branch prefix', checkBranchName(`${prefix}x`));
  return prefix;
}

/**
 * Deletes a test branch (closing its draft PR first): the deleteTestBranch activity's work, without its
 * heartbeat, for the side-effect activity (activities/side-effects), which heartbeats its own progress.
 */
export function createTestBranchDeleter(gitHost: GitHost) {
  return async (input: { repo: RepositoryKey; branchName: string; testBranchPrefix?: string | null }) => {
    await guard(() => gitHost.deleteBranch(input.repo, input.branchName, prefixOn(gitHost, input)));
  };
}

export function createGitActivities(deps: {
  gitHost: GitHost;
  ownership: RepositoryOwnership;
  /**
   * Starts a test-run workflow, or finds it started already (a retried build): resolves either way.
   * Absent: buildTestRun starts none, and the queue starts the run itself.
   */
  startTestRun?: (start: TestRunStart, built: { branchName: string; headSha: string }) => Promise<void>;
  /**
   * Performs the side effects that ride along with readPullRequest, buildTestRun and land
   * (activities/side-effects/riding.ts); absent (tests of the git work alone): any effect sent fails.
   */
  performSideEffects?: (input: SideEffectsInput) => Promise<SideEffectsResult>;
}) {
  const { gitHost, ownership } = deps;
  const perform = deps.performSideEffects ?? performNoSideEffects;
  // The API refuses requests for another organisation's repository; this second check covers queues
  // made before ownership existed and any path that reaches the worker without the API.
  const owns = (input: { organisationId: string; repo: RepositoryKey }) =>
    ownership.owns(input.organisationId, input.repo);

  const prefixOf = (input: { repo: RepositoryKey; testBranchPrefix?: string | null }) =>
    prefixOn(gitHost, input);

  async function readPullRequest(input: {
    repo: RepositoryKey;
    targetBranch: string;
    pr: number;
  }): Promise<PullRequestSnapshot> {
    return guard(async () => {
      const found = await gitHost.readPullRequest(input.repo, input.pr, input.targetBranch);
      if (found.kind === 'not_found') {
        return {
          found: false,
          headSha: '',
          title: '',
          author: '',
          baseBranch: null,
          mergeable: 'unknown',
          targetTipSha: null,
          basedOnTargetTip: false,
          state: 'absent',
        };
      }
      const p = found.pullRequest;
      return {
        found: p.state === 'open',
        state: p.state,
        ...(p.blockedBy ? { blockedBy: p.blockedBy } : {}),
        ...(p.testBranch ? { testBranch: p.testBranch } : {}),
        ...(p.commitTitle ? { commitTitle: p.commitTitle } : {}),
        headSha: p.headSha,
        title: p.title,
        author: p.author,
        baseBranch: p.baseBranch,
        mergeable: p.mergeability,
        targetTipSha: p.targetTipSha,
        basedOnTargetTip: p.basedOnTargetTip,
      };
    });
  }

  async function readTargetTip(input: { repo: RepositoryKey; targetBranch: string }): Promise<string | null> {
    return guard(async () => {
      const tip = await gitHost.readBranchTip(input.repo, input.targetBranch);
      return tip.kind === 'found' ? tip.sha : null;
    });
  }

  async function buildTestRun(input: BuildRunInput): Promise<BuildRunResult> {
    return guard(async () => {
      if (!(await owns(input))) return { kind: 'no_target', detail: notOwned(input.repo) };
      const tip = await gitHost.readBranchTip(input.repo, input.targetBranch);
      if (tip.kind === 'not_found')
        return { kind: 'no_target', detail: `The target branch ${input.targetBranch} does not exist.` };
      const prefix = prefixOf(input);
      const branchName = testBranchName(input.branchPr, input.runId, prefix);
      const built = await gitHost.buildTestBranch({
        repo: input.repo,
        targetBranch: input.targetBranch,
        baseSha: input.buildOnSha ?? tip.sha,
        prs: input.prs,
        mergeMethod: input.mergeMethod,
        branchName,
        branchPrefix: prefix,
        // A stacked build: the PRs ahead sit in buildOnSha on the target tip (only a conflict reads them).
        ...(input.buildOnSha && input.underneath?.length
          ? { underneath: { targetSha: tip.sha, prs: input.underneath } }
          : {}),
        ...(input.testPullRequest
          ? { testPullRequest: { runId: input.runId, prs: input.testPullRequest.prs } }
          : {}),
        ...(input.avoidShas?.length ? { avoidShas: input.avoidShas } : {}),
      });
      switch (built.kind) {
        case 'built': {
          const checks = await runChecks(input, built.headSha);
          // No checks decide the run: the command runner tests the branch, so its run starts now, in
          // this activity (a retry finds it started). The queue hears its result by signal.
          const started = input.testRun && checks === null && deps.startTestRun;
          if (started) await deps.startTestRun!(input.testRun!, { branchName, headSha: built.headSha });
          // What the run tests, as the host holds it now: a landing must put exactly this tree on the target.
          const headTree = await gitHost.commitTree(input.repo, built.headSha);
          // A stacked run is built on another run's head; the base it tests on is still the target tip.
          return {
            kind: 'built',
            branchName,
            baseSha: input.buildOnSha ? tip.sha : built.baseSha,
            headSha: built.headSha,
            ...(headTree ? { headTree } : {}),
            ...(checks ? { checks } : {}),
            ...(started ? { testRunStarted: true } : {}),
          };
        }
        case 'conflict':
          return {
            kind: 'conflict',
            prNumber: built.prNumber,
            detail: built.detail,
            files: built.files,
            // Built on something other than the target tip without the PRs in it named (an input from
            // before they were): "no PR ahead touches the files" would wrongly blame the target branch.
            ...(built.clashesWith && (!onOtherBase(input, tip.sha) || input.underneath?.length)
              ? { clashesWith: built.clashesWith }
              : {}),
          };
        case 'pr_moved':
          return { kind: 'pr_moved', prNumber: built.prNumber, actualSha: built.actualSha };
        case 'pr_closed':
          return { kind: 'pr_closed', prNumber: built.prNumber };
      }
    });
  }

  /** Whether the build's base is not the target tip read now (a stacked run's head, or an older tip). */
  function onOtherBase(input: BuildRunInput, tipSha: string): boolean {
    return input.buildOnSha !== null && input.buildOnSha !== tipSha;
  }

  /** The checks a run must pass on a host with checks; null on hosts without (the command runs). */
  async function runChecks(input: BuildRunInput, headSha: string): Promise<RunChecks | null> {
    if (input.queueNamesChecks) return (await gitHost.hasChecks(input.repo)) ? { kind: 'queue' } : null;
    const found = await gitHost.requiredChecks(input.repo, input.targetBranch, headSha);
    if (found === null) return null;
    switch (found.kind) {
      case 'found':
        return { kind: 'required', contexts: found.contexts, source: found.source };
      case 'invalid':
        return {
          kind: 'problem',
          reason: 'START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES',
          detail: found.detail,
        };
      case 'none':
        return {
          kind: 'problem',
          reason: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
          detail:
            `No required checks for ${input.targetBranch}: set the queue's requiredStatuses, list them under ` +
            `merge.required_statuses in .trunk/trunk.yaml, or require status checks on ${input.targetBranch}.`,
        };
    }
  }

  async function land(input: LandInput): Promise<LandResult> {
    return guard(async () => {
      if (!(await owns(input)))
        return { kind: 'rejected', reason: 'GITHUB_API_MERGE_PR_FAILED', detail: notOwned(input.repo) };
      const tip = await gitHost.readBranchTip(input.repo, input.targetBranch);
      if (tip.kind === 'not_found') return { kind: 'target_moved', tipSha: null };
      const expected = input.expectedTipSha ?? tip.sha;
      switch (input.via) {
        case 'direct': {
          const pr = input.prs[0];
          if (!pr)
            throw ApplicationFailure.nonRetryable('A direct merge needs exactly one PR.', 'InvalidLanding');
          const r = await gitHost.directMerge({
            repo: input.repo,
            targetBranch: input.targetBranch,
            expectedTargetSha: expected,
            pr,
            mergeMethod: input.mergeMethod,
            ...(input.landing ? { landing: input.landing } : {}),
          });
          switch (r.kind) {
            case 'merged':
              return { kind: 'landed', tipSha: r.sha, proof: await proofOf(input, null, false) };
            case 'moved':
              return { kind: 'target_moved', tipSha: r.actualSha };
            case 'rejected':
              return { kind: 'rejected', reason: r.reason, detail: r.detail };
            case 'conflict':
              return { kind: 'pr_problem', prNumber: r.prNumber, reason: 'MERGE_CONFLICT_AT_MERGE_TIME' };
            case 'pr_moved':
              return { kind: 'pr_problem', prNumber: r.prNumber, reason: 'PR_UPDATED_AT_MERGE_TIME' };
            case 'pr_closed':
              return { kind: 'pr_problem', prNumber: r.prNumber, reason: 'PR_CLOSED' };
          }
          break;
        }
        case 'rebase': {
          // Another lane merged underneath: apply the PRs onto the current tip, then swap it in.
          const built = await gitHost.buildTestBranch({
            repo: input.repo,
            targetBranch: input.targetBranch,
            baseSha: expected,
            prs: input.prs,
            mergeMethod: input.mergeMethod,
            branchName: testBranchName(input.prs[0]?.number ?? 0, `land-${input.mergeId}`, prefixOf(input)),
            branchPrefix: prefixOf(input),
          });
          if (built.kind !== 'built') {
            return {
              kind: 'pr_problem',
              prNumber: built.prNumber,
              reason:
                built.kind === 'conflict'
                  ? 'MERGE_CONFLICT_AT_MERGE_TIME'
                  : built.kind === 'pr_moved'
                    ? 'PR_UPDATED_AT_MERGE_TIME'
                    : 'PR_CLOSED',
            };
          }
          const tested =
            input.testedTree ??
            (input.testedSha ? await gitHost.commitTree(input.repo, input.testedSha) : null);
          const result = await advance(input, expected, built.headSha, { testedTree: tested, rebased: true });
          await gitHost.deleteBranch(input.repo, built.branchName, prefixOf(input));
          return result;
        }
        case 'tested_commit': {
          if (!input.testedSha)
            throw ApplicationFailure.nonRetryable(
              'A tested-commit landing needs the tested sha.',
              'InvalidLanding',
            );
          // The proof before landing: the host's commit for the tested id must hold the tree the run
          // tested (recorded when its branch was built); otherwise the target would hold something else.
          const hostTree = await gitHost.commitTree(input.repo, input.testedSha);
          const tested = input.testedTree ?? hostTree;
          if (tested !== hostTree)
            return {
              kind: 'rejected',
              reason: 'LANDED_TREE_DIFFERS',
              detail:
                `Refused to move ${input.targetBranch} to ${input.testedSha}: the host holds tree ${hostTree ?? '(none)'} ` +
                `for that commit, not the tree ${tested} its test run tested. Nothing was landed.`,
            };
          return advance(input, expected, input.testedSha, { testedTree: tested, rebased: false });
        }
      }
    });
  }

  /** The tree the target holds right after a landing, read back from the host, with the tested one. */
  async function proofOf(
    input: LandInput,
    testedTree: string | null,
    rebased: boolean,
  ): Promise<LandingProof> {
    const tip = await gitHost.readBranchTip(input.repo, input.targetBranch);
    const landedTree = tip.kind === 'found' ? await gitHost.commitTree(input.repo, tip.sha) : null;
    return { testedTree, landedTree, rebased };
  }

  async function advance(
    input: LandInput,
    expectedSha: string,
    newSha: string,
    tested: { testedTree: string | null; rebased: boolean },
  ): Promise<LandResult> {
    const r = await gitHost.advanceTarget({
      repo: input.repo,
      targetBranch: input.targetBranch,
      expectedSha,
      newSha,
      prs: input.prs,
      mergeMethod: input.mergeMethod,
      ...(input.landing ? { landing: input.landing } : {}),
    });
    switch (r.kind) {
      case 'advanced':
        return {
          kind: 'landed',
          tipSha: r.sha,
          ...(r.warning ? { warning: r.warning } : {}),
          proof: await proofOf(input, tested.testedTree, tested.rebased),
        };
      case 'moved':
        return { kind: 'target_moved', tipSha: r.actualSha };
      case 'pr_moved':
        return { kind: 'pr_problem', prNumber: r.prNumber, reason: 'PR_UPDATED_AT_MERGE_TIME' };
      case 'pr_closed':
        return { kind: 'pr_problem', prNumber: r.prNumber, reason: 'PR_CLOSED' };
      case 'rejected':
        return {
          kind: 'rejected',
          reason: r.reason,
          detail: r.detail,
          ...(r.merged ? { merged: r.merged } : {}),
        };
    }
  }

  /** What CI reported for a commit, re-read from the host (hints and reconciliation). */
  async function readChecks(input: { repo: RepositoryKey; sha: string }): Promise<ChecksReading> {
    return guard(() => gitHost.readChecks(input.repo, input.sha));
  }

  const deleteTestBranch = createTestBranchDeleter(gitHost);

  /** railyard's open test PRs into the queue's target (draft-PR testing mode), with their runs. */
  async function listTestPullRequests(input: {
    repo: RepositoryKey;
    targetBranch: string;
    testBranchPrefix?: string | null;
  }): Promise<TestPullRequest[]> {
    return guard(() => gitHost.listTestPullRequests(input.repo, input.targetBranch, prefixOf(input)));
  }

  // Each heartbeats while git (or the host's API) works: the workflow gives them a heartbeat timeout of
  // seconds (workflows/queue/activity-proxies.ts), so a call on a worker that died is retried that soon.
  return {
    // The queue's three git steps may carry its side effects (ADR 0028).
    readPullRequest: riding(perform, readPullRequest, HEARTBEAT_MS),
    readTargetTip: heartbeating(readTargetTip, HEARTBEAT_MS),
    buildTestRun: riding(perform, buildTestRun, HEARTBEAT_MS, heldTestingNotices),
    land: riding(perform, land, HEARTBEAT_MS),
    readChecks: heartbeating(readChecks, HEARTBEAT_MS),
    deleteTestBranch: heartbeating(deleteTestBranch, HEARTBEAT_MS),
    listTestPullRequests: heartbeating(listTestPullRequests, HEARTBEAT_MS),
  };
}
