/**
 * The `local` git host: bare repositories under a configured root (`<root>/<host>/<owner>/<name>.git`),
 * pull requests as the refs `refs/pull/<n>/head` (GitHub's convention; a closed PR is a deleted ref),
 * title and author taken from the head commit. Every operation runs the real `git` binary.
 *
 * Invariants:
 *  - Every name from outside is validated before git runs (names.ts); an invalid one throws
 *    `InvalidGitNameError`.
 *  - Test branches live under `railyard-merge/`; this host refuses to build or delete anything else,
 *    so a bug or a hostile input cannot rewrite a real branch through these calls.
 *  - The target branch moves only by compare-and-swap from the base a run was built on, and only
 *    forward (the new commit descends from the old tip).
 * No state is kept between calls but a bounded memo of compositions (compose-memo.ts), a shortcut that
 * gives the same commits: the repositories on disk are the state.
 */
import { resolve } from 'node:path';
import {
  commitExists,
  isAncestor,
  parseCommit,
  readRef,
  subjectOf,
  treeOf,
  type RepoAccess,
} from './commits';
import { composePullRequests } from './compose';
import { createComposeMemo } from './compose-memo';
import { createGit, expectSuccess, type GitIdentity } from './git-cli';
import type { RepositoryKey } from '../contract';
import type { ProcessRunner } from '../platform/process-runner';
import type { GitHost } from './git-host';
import { checkAdvanceInput, checkBuildInput, checkDirectMergeInput, checkTestBranch } from './input-checks';
import { advanceTarget, directMerge } from './landing';
import { titleFromDescription } from '../contract';
import { trialMerge } from './merge-methods';
import { lookUp } from './object-lookups';
import * as names from './names';
import { createRefOnce, deleteRefIfPresent } from './refs';
import { checkPreflightInput, writePreflightBranch } from './preflight-branch';
import { cloneForRun } from './run-clone';
import { existingRepositoryPath, repositoryPath } from './repository-path';

export interface LocalGitHostOptions {
  /** Folder holding the bare repositories. */
  root: string;
  /** Committer of every commit railyard writes; `railyard <railyard@localhost>` by default. */
  identity?: GitIdentity;
  gitBinary?: string;
  /** Limit for one git command. */
  gitTimeoutMs?: number;
  /** Largest file readFileAtCommit returns. */
  maxFileBytes?: number;
  /** Who starts git's processes (the worker's process broker); this process by default. */
  runner?: ProcessRunner;
}

export interface LocalGitHost extends GitHost {
  readonly root: string;
  /** Where `repo` lives (or would live) on disk. */
  repositoryPath(repo: RepositoryKey): string;
}

const withCommitTitle = (commitTitle: string | undefined) => (commitTitle ? { commitTitle } : {});

export const DEFAULT_IDENTITY: GitIdentity = { name: 'railyard', email: 'railyard@localhost' };

export function createLocalGitHost(options: LocalGitHostOptions): LocalGitHost {
  const root = resolve(options.root);
  const git = createGit({
    identity: options.identity ?? DEFAULT_IDENTITY,
    binary: options.gitBinary,
    timeoutMs: options.gitTimeoutMs,
    runner: options.runner,
  });
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
  // The PRs ahead of a run were applied for the run ahead of it: their commits are reused.
  const memo = createComposeMemo();

  async function open(repo: RepositoryKey): Promise<RepoAccess | null> {
    const dir = await existingRepositoryPath(root, repo);
    return dir === null ? null : { git, dir };
  }

  async function mustOpen(repo: RepositoryKey): Promise<RepoAccess> {
    const access = await open(repo);
    if (access === null)
      throw new Error(`repository ${repo.host}/${repo.owner}/${repo.name} does not exist under the git root`);
    return access;
  }

  async function mustHaveCommit(access: RepoAccess, sha: string, what: string): Promise<void> {
    if (!(await commitExists(access, sha)))
      throw new Error(`${what} ${sha} is not a commit of this repository`);
  }

  const host: LocalGitHost = {
    root,
    repositoryPath: (repo) => repositoryPath(root, repo),
    testBranchPrefix: () => names.TEST_BRANCH_PREFIX,
    // Statuses of local repositories come through the API (the queue's commitStatus signal).
    hasChecks: () => Promise.resolve(false),
    readChecks: () => Promise.resolve(null),
    requiredChecks: () => Promise.resolve(null),

    async readPullRequest(repo, number, targetBranch) {
      const prRef = names.pullRequestRef(number);
      const targetRef = names.branchRef(targetBranch);
      const access = await open(repo);
      if (access === null) return { kind: 'not_found', what: 'repository' };
      // The target's tip and the PR's head commit in one git process (object-lookups.ts).
      const [tipAnswer, headAnswer] = await lookUp(access, [
        { kind: 'info', name: `${targetRef}^{commit}` },
        { kind: 'contents', name: `${prRef}^{commit}` },
      ]);
      if (headAnswer?.kind !== 'found' || headAnswer.contents === null)
        return { kind: 'not_found', what: 'pull_request' };
      const headSha = headAnswer.sha;
      const head = parseCommit(headSha, headAnswer.contents);
      const tip = tipAnswer?.kind === 'found' ? tipAnswer.sha : null;
      const trial = tip === null ? null : await trialMerge(access, tip, headSha);
      return {
        kind: 'found',
        pullRequest: {
          number,
          headSha,
          title: subjectOf(head.message),
          author: head.author.name,
          authorEmail: head.author.email,
          state: 'open',
          baseBranch: null,
          targetTipSha: tip,
          mergeability: trial === null ? 'unknown' : trial.kind === 'clean' ? 'mergeable' : 'conflicting',
          conflictFiles: trial?.kind === 'conflict' ? trial.files : [],
          basedOnTargetTip: tip !== null && (await isAncestor(access, tip, headSha)),
          // A local PR's description is its head commit's message below the subject.
          ...withCommitTitle(titleFromDescription(head.message.split('\n').slice(1).join('\n'))),
        },
      };
    },

    async readBranchTip(repo, branch) {
      const ref = names.branchRef(branch);
      const access = await open(repo);
      if (access === null) return { kind: 'not_found', what: 'repository' };
      const sha = await readRef(access, ref);
      return sha === null ? { kind: 'not_found', what: 'branch' } : { kind: 'found', sha };
    },

    async buildTestBranch(input) {
      checkBuildInput(input, input.branchPrefix);
      const access = await mustOpen(input.repo);
      await mustHaveCommit(access, input.baseSha, 'base');
      const composed = await composePullRequests(access, input.baseSha, input.prs, input.mergeMethod, {
        underneath: input.underneath,
        memo,
        avoidShas: input.avoidShas,
      });
      if (composed.kind !== 'composed') return composed;
      await createRefOnce(access, names.branchRef(input.branchName), composed.headSha);
      return {
        kind: 'built',
        branchName: input.branchName,
        baseSha: input.baseSha,
        headSha: composed.headSha,
        steps: composed.steps,
      };
    },

    async advanceTarget(input) {
      checkAdvanceInput(input);
      return advanceTarget(await mustOpen(input.repo), input);
    },

    async directMerge(input) {
      checkDirectMergeInput(input);
      const access = await mustOpen(input.repo);
      await mustHaveCommit(access, input.expectedTargetSha, 'target tip');
      return directMerge(access, input);
    },

    async deleteBranch(repo, branch, queuePrefix) {
      checkTestBranch(branch, queuePrefix);
      const ref = names.branchRef(branch);
      const access = await open(repo);
      if (access === null) return { kind: 'already_absent' };
      return (await deleteRefIfPresent(access, ref)) ? { kind: 'deleted' } : { kind: 'already_absent' };
    },

    async pushPreflightBranch(input) {
      checkPreflightInput(input, names.TEST_BRANCH_PREFIX);
      return writePreflightBranch(await mustOpen(input.repo), input);
    },

    // No PRs to open here: draft-PR testing mode has no effect on the local host.
    listTestPullRequests: () => Promise.resolve([]),

    async commitTree(repo, sha) {
      names.assertValid('sha', names.checkSha(sha));
      const access = await mustOpen(repo);
      return treeOf(access, sha);
    },

    async branchContains(repo, branch, sha) {
      names.assertValid('branch', names.checkBranchName(branch));
      names.assertValid('sha', names.checkSha(sha));
      const access = await mustOpen(repo);
      const tip = await readRef(access, names.branchRef(branch));
      return tip !== null && (await commitExists(access, sha)) && (await isAncestor(access, sha, tip));
    },

    async readFileAtCommit(repo, sha, path) {
      names.assertValid('sha', names.checkSha(sha));
      names.assertValid('path', names.checkRepoFilePath(path));
      const access = await mustOpen(repo);
      const object = `${sha}:${path}`;
      // Its type and size in one git process, the bytes in a second only when they are allowed.
      const [answer] = await lookUp(access, [{ kind: 'info', name: object }]);
      if (answer?.kind !== 'found' || answer.type !== 'blob') return { kind: 'not_found' };
      const size = answer.size;
      if (size > maxFileBytes)
        throw new Error(`${path} at ${sha} is ${size} bytes, more than the ${maxFileBytes} allowed`);
      return {
        kind: 'found',
        content: await expectSuccess(git, ['cat-file', 'blob', object], { dir: access.dir }),
      };
    },

    async checkout({ repo, sha, directory, workTree }) {
      names.assertValid('sha', names.checkSha(sha));
      const access = await mustOpen(repo);
      await mustHaveCommit(access, sha, 'commit');
      await cloneForRun(git, {
        source: access.dir,
        sha,
        directory,
        ...(workTree === false ? { workTree } : {}),
      });
    },
  };
  return host;
}
