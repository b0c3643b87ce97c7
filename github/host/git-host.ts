/**
 * The `github` git host: repositories on GitHub (or GitHub Enterprise Server) reached as a GitHub App
 * installation, REST for what GitHub knows (PRs, checks, protection, API merges) and real git for the
 * rest, in a mirror per repository (mirror.ts) under the worker's data folder. Its parts: reaching a
 * repository (github-remote.ts), landing (github-landing.ts), readiness (github-readiness.ts).
 *
 * Invariants:
 * - The mirror is a cache: each call fetches what it needs first (the target, `refs/pull/<n>/head`, a
 *   commit another worker built), so workers with separate data folders serve the same queues.
 * - Test branches are composed with the same merge-method code as on the local host (deterministic
 *   dates, so a rebuild gives the same commits), then pushed under the host's prefix
 *   (`trunk-merge/` by default, so `on: push: branches: trunk-merge/**` workflows run unchanged).
 *   Only branches under that prefix are ever created, force-updated or deleted.
 * - Draft-PR testing mode (github/test-pull-requests.ts): a build asked for it opens (or finds) a draft
 *   PR from the pushed branch; deleting a test branch closes the PRs from it first.
 * - The target moves only by compare-and-swap on GitHub: `push` landing uses `--force-with-lease`
 *   from the expected tip (a stale lease is `moved`, never an overwrite); `api` landing checks the tip
 *   before the first merge and each PR's head sha rides in the merge request, and afterwards the
 *   result's tree is compared with the tested tree (a mismatch is reported as a warning).
 * - A repository no linked installation covers reads as `not_found` / is refused; nothing is written.
 * - Refusals GitHub gives for configuration (protected branch, merge not allowed) are `rejected` with
 *   a sentence saying what to configure; transport and 5xx failures throw, so the activity retries.
 * - A token git is refused with (revoked, expired early) is dropped and git runs once more with a new
 *   one, as the REST client does on a 401: a retry never resends a dead token.
 */
import { commitExists, isAncestor } from '../../git/commits';
import { composePullRequests, readPullRequestHeads } from '../../git/compose';
import { createComposeMemo } from '../../git/compose-memo';
import { expectSuccess, type GitIdentity } from '../../git/git-cli';
import type { GitHost, PullRequestInfo, RequiredChecks } from '../../git/git-host';
import { createGitHubLanding } from './landing';
import { directMergeResultOf } from '../../git/landing';
import { blockedBy, readyOnGitHub } from './readiness';
import { createGitHubRemote, type PullWire, type Target } from './remote';
import {
  checkAdvanceInput,
  checkBuildInput,
  checkDirectMergeInput,
  checkTestBranch,
} from '../../git/input-checks';
import { trialMerge } from '../../git/merge-methods';
import { cloneForRun } from '../../git/run-clone';
import { titleFromDescription } from '../../contract';
import * as names from '../../git/names';
import { readCommitChecks } from './checks';
import { pushPreflightBranchOnGitHub, refusedForGood, unavailableNow } from './preflight-branch';
import { checkPreflightInput } from '../../git/preflight-branch';
import {
  closeTestPullRequests,
  listTestPullRequests,
  openTestPullRequest,
  openTestPullRequestLink,
} from './test-pull-requests';
import { requiredFromProtection, requiredFromTrunkConfig, TRUNK_CONFIG_PATH } from './required-checks';
import { GitHubApiError, type GitHubClients } from '../app/rest-client';
import type { GitHubAppAuth } from '../app/app-auth';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import type { ProcessRunner } from '../../platform/process-runner';

export const DEFAULT_GITHUB_TEST_BRANCH_PREFIX = 'trunk-merge/';

/** The committer of what railyard writes on GitHub (an address GitHub accepts and never mails). */
export const GITHUB_IDENTITY: GitIdentity = { name: 'railyard', email: 'railyard@users.noreply.github.com' };

export interface GitHubGitHostOptions {
  /** Folder of the mirrors (the local host's layout), inside the worker's data folder. */
  mirrorRoot: string;
  /** Where repositories are cloned from, e.g. `https://github.com` (`<gitUrl>/<owner>/<name>.git`). */
  gitUrl: string;
  /** The linked installation that covers the repository, or null. */
  installationOf: (repo: RepositoryKey) => Promise<number | null>;
  clients: GitHubClients;
  /** Tokens for git; `forget` drops one git was refused with (revoked, or expired early). */
  auth: Pick<GitHubAppAuth, 'installationToken' | 'forget'>;
  testBranchPrefix?: string;
  identity?: GitIdentity;
  gitTimeoutMs?: number;
  maxFileBytes?: number;
  /** Who starts git's processes (the worker's process broker); this process by default. */
  runner?: ProcessRunner;
}

/** The title a PR's description asks for with a `merge-commit-title:` line (contract/commit-message.ts). */
function commitTitleOf(body: string | null | undefined): { commitTitle?: string } {
  const commitTitle = titleFromDescription(body);
  return commitTitle ? { commitTitle } : {};
}

export function createGitHubGitHost(options: GitHubGitHostOptions): GitHost {
  const prefix = options.testBranchPrefix ?? DEFAULT_GITHUB_TEST_BRANCH_PREFIX;
  names.assertValid('test branch prefix', names.checkBranchName(`${prefix}x`));
  const remote = createGitHubRemote({ ...options, identity: options.identity ?? GITHUB_IDENTITY });
  const { mirrors, target, mustTarget, fetch, ensureCommit, readPull, tipOf, push, checkHeads } = remote;
  const landing = createGitHubLanding(remote);
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
  // The PRs ahead of a run were applied on the mirror for the run ahead of it: their commits are reused.
  const memo = createComposeMemo();

  const host: GitHost = {
    testBranchPrefix: () => prefix,

    async readPullRequest(repo, number, targetBranch) {
      const t = await target(repo);
      if (t === null) return { kind: 'not_found', what: 'repository' };
      const wire = await readPull(t, number);
      if (wire === null) return { kind: 'not_found', what: 'pull_request' };
      const tip = await tipOf(t, targetBranch);
      const specs = [`+${names.pullRequestRef(number)}:${names.pullRequestRef(number)}`];
      if (tip !== null) specs.push(`+${names.branchRef(targetBranch)}:${names.branchRef(targetBranch)}`);
      const access = await fetch(t, specs);
      await ensureCommit(t, wire.head.sha);
      const state: PullRequestInfo['state'] = wire.merged
        ? 'merged'
        : wire.state === 'open'
          ? 'open'
          : 'closed';
      const conflicting = wire.mergeable === false || wire.mergeable_state === 'dirty';
      const trial = conflicting && tip !== null ? await trialMerge(access, tip, wire.head.sha) : null;
      return {
        kind: 'found',
        pullRequest: {
          number,
          headSha: wire.head.sha,
          title: wire.title,
          author: wire.user?.login ?? '',
          authorEmail: '',
          state,
          baseBranch: wire.base.ref,
          targetTipSha: tip,
          mergeability: conflicting ? 'conflicting' : readyOnGitHub(wire) ? 'mergeable' : 'unknown',
          conflictFiles: trial?.kind === 'conflict' ? trial.files : [],
          basedOnTargetTip: tip !== null && (await isAncestor(access, tip, wire.head.sha)),
          ...(state === 'open' && !conflicting && !readyOnGitHub(wire)
            ? { blockedBy: await blockedBy(t, wire) }
            : {}),
          ...(isTestBranchHead(t, wire, prefix) ? { testBranch: wire.head.ref! } : {}),
          ...commitTitleOf(wire.body),
        },
      };
    },

    async readBranchTip(repo, branch) {
      const t = await target(repo);
      if (t === null) return { kind: 'not_found', what: 'repository' };
      const sha = await tipOf(t, branch);
      return sha === null ? { kind: 'not_found', what: 'branch' } : { kind: 'found', sha };
    },

    async commitTree(repo, sha) {
      names.assertValid('sha', names.checkSha(sha));
      const t = await mustTarget(repo);
      // GitHub's own object, not the mirror's: what the branch would hold on GitHub if moved there.
      try {
        const r = await t.client.request<{ tree: { sha: string } }>(
          'GET /repos/{owner}/{repo}/git/commits/{commit_sha}',
          { ...t.params, commit_sha: sha },
        );
        return r.data.tree.sha;
      } catch (err) {
        if (err instanceof GitHubApiError && (err.status === 404 || err.status === 422)) return null;
        throw err;
      }
    },

    async branchContains(repo, branch, sha) {
      names.assertValid('branch', names.checkBranchName(branch));
      names.assertValid('sha', names.checkSha(sha));
      const t = await mustTarget(repo);
      const tip = await tipOf(t, branch);
      if (tip === null) return false;
      if (tip === sha) return true;
      const access = await fetch(t, [`+${names.branchRef(branch)}:${names.branchRef(branch)}`]);
      // Fetching the branch brings every ancestor of its tip: a landed commit not here left the branch.
      return (await commitExists(access, sha)) && (await isAncestor(access, sha, tip));
    },

    async buildTestBranch(input) {
      checkBuildInput(input, input.branchPrefix ?? prefix);
      const t = await mustTarget(input.repo);
      // Closed and merged PRs are built too, as the local host does: a PR the queue landed while this
      // run was waiting to be built (merged, or closed by railyard after a pushed squash) is still part
      // of the tree the engine keeps the run for, and refs/pull/<n>/head stays on GitHub. A PR closed by
      // hand leaves the queue through its webhook, and landing refuses it (checkHeads below).
      const heads = await checkHeads(t, input.prs, { closedMayBuild: true });
      if (heads.kind === 'pr_closed')
        return { kind: 'pr_closed', prNumber: heads.prNumber, reason: 'PR_CLOSED' };
      if (heads.kind === 'pr_moved') return { ...heads, reason: 'PR_PUSHED_TO' };
      const access = await fetch(t, [
        `+${names.branchRef(input.targetBranch)}:${names.branchRef(input.targetBranch)}`,
        ...input.prs.map((pr) => `+${names.pullRequestRef(pr.number)}:${names.pullRequestRef(pr.number)}`),
      ]);
      await ensureCommit(t, input.baseSha);
      // GitHub's refs/pull/<n>/head can lag a push by a moment; the REST head is what was checked.
      const mirrored = await readPullRequestHeads(
        access,
        input.prs.map((pr) => pr.number),
      );
      for (const pr of input.prs) {
        if (mirrored.get(pr.number) === pr.headSha) continue; // the fetch brought it: nothing to do
        await ensureCommit(t, pr.headSha);
        await expectSuccess(access.git, ['update-ref', names.pullRequestRef(pr.number), pr.headSha], {
          dir: access.dir,
        });
      }
      const composed = await composePullRequests(access, input.baseSha, input.prs, input.mergeMethod, {
        underneath: input.underneath,
        memo,
        avoidShas: input.avoidShas,
      });
      if (composed.kind !== 'composed') return composed;
      const ref = names.branchRef(input.branchName);
      // The branch is ours (under the prefix) and a rebuild gives the same commit: force is safe.
      const r = await push(t, ['--force', '--', t.remote.url, `${composed.headSha}:${ref}`]);
      if (r.exitCode !== 0)
        throw new Error(
          `pushing ${input.branchName} to ${repositoryLabel(t.repo)} failed: ${r.stderr.trim().slice(0, 300)}`,
        );
      await expectSuccess(access.git, ['update-ref', ref, composed.headSha], { dir: access.dir });
      const pullRequest = input.testPullRequest
        ? await openTestPullRequest(t.client, t.params, {
            branch: input.branchName,
            targetBranch: input.targetBranch,
            run: input.testPullRequest,
          })
        : null;
      return {
        kind: 'built',
        branchName: input.branchName,
        baseSha: input.baseSha,
        headSha: composed.headSha,
        steps: composed.steps,
        ...(pullRequest !== null ? { pullRequest } : {}),
      };
    },

    async advanceTarget(input) {
      checkAdvanceInput(input);
      const t = await mustTarget(input.repo);
      return landing.advance(t, input);
    },

    async directMerge(input) {
      checkDirectMergeInput(input);
      const t = await mustTarget(input.repo);
      const { expectedTargetSha: expectedSha, pr } = input;
      let newSha = pr.headSha;
      if ((input.landing ?? 'push') === 'push') {
        await fetch(t, [`+${names.pullRequestRef(pr.number)}:${names.pullRequestRef(pr.number)}`]);
        const access = await ensureCommit(t, expectedSha);
        await ensureCommit(t, pr.headSha);
        const composed = await composePullRequests(access, expectedSha, [pr], input.mergeMethod);
        if (composed.kind !== 'composed') return composed;
        newSha = composed.headSha;
      }
      return directMergeResultOf(await host.advanceTarget({ ...input, expectedSha, newSha, prs: [pr] }));
    },

    async deleteBranch(repo, branch, queuePrefix) {
      checkTestBranch(branch, queuePrefix ?? prefix);
      const t = await target(repo);
      if (t === null) return { kind: 'already_absent' };
      const ref = names.branchRef(branch);
      if ((await tipOf(t, branch)) === null) return { kind: 'already_absent' };
      // Closed by railyard rather than by the deletion, so the PR says who closed it and why.
      await closeTestPullRequests(t.client, t.params, branch);
      const r = await push(t, ['--', t.remote.url, `:${ref}`]);
      if (r.exitCode !== 0 && (await tipOf(t, branch)) !== null)
        throw new Error(
          `deleting ${branch} on ${repositoryLabel(repo)} failed: ${r.stderr.trim().slice(0, 300)}`,
        );
      const access = await mirrors.open(repo);
      await expectSuccess(access.git, ['update-ref', '-d', ref], { dir: access.dir });
      return { kind: 'deleted' };
    },

    async pushPreflightBranch(input) {
      checkPreflightInput(input, prefix);
      const t = await mustTarget(input.repo);
      const pushed = await pushPreflightBranchOnGitHub(t, input, tipOf);
      if (input.draftPullRequestInto === undefined) return pushed;
      try {
        const draft = await openTestPullRequestLink(t.client, t.params, {
          branch: input.branchName,
          targetBranch: input.draftPullRequestInto,
          run: { runId: input.branchName.slice((input.branchPrefix ?? prefix).length), prs: [] },
        });
        return draft ? { ...pushed, draftPullRequest: draft } : pushed;
      } catch (err) {
        // No branch is left behind without its preflight: the workflow deletes only what it was told of.
        await host.deleteBranch(input.repo, input.branchName, input.branchPrefix).catch(() => undefined);
        throw refusedForGood(err) ?? unavailableNow(err) ?? err;
      }
    },

    async listTestPullRequests(repo, targetBranch, queuePrefix) {
      names.assertValid('target branch', names.checkBranchName(targetBranch));
      const t = await target(repo);
      if (t === null) return [];
      return listTestPullRequests(t.client, t.params, targetBranch, queuePrefix ?? prefix);
    },

    async readFileAtCommit(repo, sha, path) {
      names.assertValid('sha', names.checkSha(sha));
      names.assertValid('path', names.checkRepoFilePath(path));
      const access = await ensureCommit(await mustTarget(repo), sha);
      const object = `${sha}:${path}`;
      const type = await access.git(['cat-file', '-t', object], { dir: access.dir });
      if (type.exitCode !== 0 || type.stdout.trim() !== 'blob') return { kind: 'not_found' };
      const size = Number(
        (await expectSuccess(access.git, ['cat-file', '-s', object], { dir: access.dir })).trim(),
      );
      if (size > maxFileBytes)
        throw new Error(`${path} at ${sha} is ${size} bytes, more than the ${maxFileBytes} allowed`);
      return {
        kind: 'found',
        content: await expectSuccess(access.git, ['cat-file', 'blob', object], { dir: access.dir }),
      };
    },

    async checkout({ repo, sha, directory, workTree }) {
      names.assertValid('sha', names.checkSha(sha));
      const access = await ensureCommit(await mustTarget(repo), sha);
      await cloneForRun(access.git, {
        source: access.dir,
        sha,
        directory,
        ...(workTree === false ? { workTree } : {}),
      });
    },

    hasChecks: () => Promise.resolve(true),

    async readChecks(repo, sha) {
      names.assertValid('sha', names.checkSha(sha));
      const t = await mustTarget(repo);
      return readCommitChecks(t.client, { owner: repo.owner, name: repo.name }, sha);
    },

    async requiredChecks(repo, targetBranch, sha): Promise<RequiredChecks> {
      const file = await host.readFileAtCommit(repo, sha, TRUNK_CONFIG_PATH).catch((err: unknown) => {
        if (err instanceof Error && /bytes, more than/.test(err.message))
          return { kind: 'too_large' as const, detail: err.message };
        throw err;
      });
      if (file.kind === 'too_large') return { kind: 'invalid', detail: file.detail };
      if (file.kind === 'found') {
        const fromFile = requiredFromTrunkConfig(file.content);
        if (fromFile.kind !== 'none') return fromFile;
      }
      const t = await mustTarget(repo);
      return requiredFromProtection(t.client, { owner: repo.owner, name: repo.name }, targetBranch);
    },
  };
  return host;
}

/**
 * Whether a PR's head is one of railyard's test branches in the repository itself (a draft test PR,
 * or any PR someone opened from such a branch): under the host's prefix or either default prefix.
 */
function isTestBranchHead(t: Target, wire: PullWire, prefix: string): boolean {
  const ref = wire.head.ref;
  if (
    ref === undefined ||
    wire.head.repo?.full_name.toLowerCase() !== `${t.repo.owner}/${t.repo.name}`.toLowerCase()
  )
    return false;
  return [prefix, names.TEST_BRANCH_PREFIX, DEFAULT_GITHUB_TEST_BRANCH_PREFIX].some((p) => ref.startsWith(p));
}
