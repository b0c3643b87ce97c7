/**
 * The `github` git host: repositories on GitHub (or GitHub Enterprise Server) reached as a GitHub App
 * installation, REST for what GitHub knows (PRs, checks, protection, API merges) and real git for the
 * rest, in a mirror per repository (mirror.ts) under the worker's data folder.
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
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { RepoAccess } from './commits';
import { commitExists, isAncestor, readRef } from './commits';
import { composePullRequests } from './compose';
import { expectSuccess, type GitIdentity } from './git-cli';
import type {
  AdvanceTargetInput,
  AdvanceTargetResult,
  GitHost,
  MergeMethod,
  PullRequestInfo,
  RequiredChecks,
} from './git-host';
import { checkAdvanceInput, checkBuildInput, checkDirectMergeInput, checkTestBranch } from './input-checks';
import { trialMerge } from './merge-methods';
import { createMirrors, type Remote } from './mirror';
import * as names from './names';
import { readCommitChecks } from '../github/checks';
import {
  closeTestPullRequests,
  listTestPullRequests,
  openTestPullRequest,
} from '../github/test-pull-requests';
import {
  requiredFromProtection,
  requiredFromTrunkConfig,
  TRUNK_CONFIG_PATH,
} from '../github/required-checks';
import { GitHubApiError, type GitHubClients, type GitHubRest } from '../github/rest-client';
import type { GitHubAppAuth } from '../github/app-auth';
import { repositoryLabel, type RepositoryKey } from '../../workflows/contract';

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
}

interface PullWire {
  number: number;
  state: string;
  merged?: boolean;
  draft?: boolean;
  title: string;
  user: { login: string } | null;
  head: { sha: string };
  base: { ref: string };
  mergeable: boolean | null;
  mergeable_state: string;
  merge_commit_sha?: string | null;
}

interface Target {
  repo: RepositoryKey;
  installationId: number;
  client: GitHubRest;
  remote: Remote;
  params: { owner: string; repo: string };
}

/**
 * git's words for a 401: with no credential helper and prompts off it cannot ask for another
 * credential ("could not read Username"); with one it says "Authentication failed".
 */
const CREDENTIAL_REFUSED = /could not read Username|Authentication failed|requested URL returned error: 401/;

/** GitHub's name for each merge method. */
const API_METHOD: Record<MergeMethod, 'merge' | 'squash' | 'rebase'> = {
  merge_commit: 'merge',
  squash: 'squash',
  rebase: 'rebase',
};

export function createGitHubGitHost(options: GitHubGitHostOptions): GitHost {
  const prefix = options.testBranchPrefix ?? DEFAULT_GITHUB_TEST_BRANCH_PREFIX;
  names.assertValid('test branch prefix', names.checkBranchName(`${prefix}x`));
  const mirrors = createMirrors({
    root: options.mirrorRoot,
    identity: options.identity ?? GITHUB_IDENTITY,
    gitTimeoutMs: options.gitTimeoutMs,
  });
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
  const gitUrl = options.gitUrl.replace(/\/+$/, '');

  async function target(repo: RepositoryKey): Promise<Target | null> {
    names.assertValid('repository', names.checkRepositoryKey(repo));
    const installationId = await options.installationOf(repo);
    if (installationId === null) return null;
    return {
      repo,
      installationId,
      client: await options.clients.forInstallation(installationId),
      remote: {
        url: `${gitUrl}/${repo.owner}/${repo.name}.git`,
        authorization: async () => {
          const token = await options.auth.installationToken(installationId);
          return `Basic ${Buffer.from(`x-access-token:${token.value()}`).toString('base64')}`;
        },
      },
      params: { owner: repo.owner, repo: repo.name },
    };
  }

  async function mustTarget(repo: RepositoryKey): Promise<Target> {
    const t = await target(repo);
    if (t === null)
      throw new Error(
        `No linked GitHub App installation covers ${repositoryLabel(repo)}; link one (docs/github.md).`,
      );
    return t;
  }

  /** Fetches refspecs (or bare commit ids) into the mirror; throws when git fails. */
  async function fetch(t: Target, specs: string[]): Promise<RepoAccess> {
    const access = await mirrors.open(t.repo);
    if (specs.length === 0) return access;
    const r = await withRemote(t, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--',
      t.remote.url,
      ...specs,
    ]);
    if (r.exitCode !== 0)
      throw new Error(`git fetch from ${repositoryLabel(t.repo)} failed: ${r.stderr.trim().slice(0, 300)}`);
    return access;
  }

  /** Makes sure `sha` is in the mirror, fetching it by id when it is not. */
  async function ensureCommit(t: Target, sha: string): Promise<RepoAccess> {
    const access = await mirrors.open(t.repo);
    if (await commitExists(access, sha)) return access;
    return fetch(t, [sha]);
  }

  async function readPull(t: Target, n: number): Promise<PullWire | null> {
    try {
      const r = await t.client.request<PullWire>('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        ...t.params,
        pull_number: n,
      });
      return r.data;
    } catch (err) {
      if (err instanceof GitHubApiError && err.status === 404) return null;
      throw err;
    }
  }

  async function tipOf(t: Target, branch: string): Promise<string | null> {
    try {
      const r = await t.client.request<{ object: { sha: string } }>(
        'GET /repos/{owner}/{repo}/git/ref/{ref}',
        {
          ...t.params,
          ref: `heads/${names.assertValid('branch', names.checkBranchName(branch))}`,
        },
      );
      return r.data.object.sha;
    } catch (err) {
      if (err instanceof GitHubApiError && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * git against the remote. A token GitHub refuses (revoked, or expired before its `expires_at`) is
   * dropped and git runs once more with a new one; otherwise every retry of the activity would send
   * the same dead token until the cached one is due for renewal. A refused credential is refused
   * before any ref is read or written, so running the command again is safe.
   */
  async function withRemote(t: Target, args: string[]) {
    const r = await mirrors.withRemote(t.repo, t.remote, args);
    if (r.exitCode === 0 || !CREDENTIAL_REFUSED.test(r.stderr)) return r;
    options.auth.forget(t.installationId);
    return mirrors.withRemote(t.repo, t.remote, args);
  }

  async function push(t: Target, args: string[]) {
    return withRemote(t, ['push', '--porcelain', ...args]);
  }

  /** Where each PR stands on GitHub now, against the sha the queue tested. */
  async function checkHeads(
    t: Target,
    prs: readonly { number: number; headSha: string }[],
    opts: { closedMayBuild?: boolean } = {},
  ): Promise<
    | { kind: 'ok'; merged: number[] }
    | { kind: 'pr_closed'; prNumber: number }
    | { kind: 'pr_moved'; prNumber: number; expectedSha: string; actualSha: string }
  > {
    const merged: number[] = [];
    for (const pr of prs) {
      const wire = await readPull(t, pr.number);
      if (wire === null) return { kind: 'pr_closed', prNumber: pr.number };
      if (wire.merged && !opts.closedMayBuild) {
        merged.push(pr.number);
        continue;
      }
      if (wire.state !== 'open' && !opts.closedMayBuild) return { kind: 'pr_closed', prNumber: pr.number };
      if (wire.head.sha !== pr.headSha)
        return { kind: 'pr_moved', prNumber: pr.number, expectedSha: pr.headSha, actualSha: wire.head.sha };
    }
    return { kind: 'ok', merged };
  }

  async function landByPush(t: Target, input: AdvanceTargetInput): Promise<AdvanceTargetResult> {
    const { expectedSha, newSha, targetBranch } = input;
    const current = await tipOf(t, targetBranch);
    if (current === newSha) return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
    if (current !== expectedSha) {
      if (current !== null) {
        const access = await fetch(t, [`+${names.branchRef(targetBranch)}:${names.branchRef(targetBranch)}`]);
        if ((await commitExists(access, newSha)) && (await isAncestor(access, newSha, current)))
          return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
      }
      return { kind: 'moved', expectedSha, actualSha: current };
    }
    const heads = await checkHeads(t, input.prs ?? []);
    if (heads.kind === 'pr_closed')
      return { kind: 'pr_closed', prNumber: heads.prNumber, reason: 'PR_CLOSED' };
    if (heads.kind === 'pr_moved') return { ...heads, reason: 'PR_UPDATED_AT_MERGE_TIME' };
    const access = await ensureCommit(t, newSha);
    await ensureCommit(t, expectedSha);
    if (!(await isAncestor(access, expectedSha, newSha)))
      return {
        kind: 'rejected',
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail: `${newSha} does not descend from ${expectedSha}`,
      };
    const ref = names.branchRef(targetBranch);
    const r = await push(t, [
      `--force-with-lease=${ref}:${expectedSha}`,
      '--',
      t.remote.url,
      `${newSha}:${ref}`,
    ]);
    if (r.exitCode === 0) {
      await closeLandedPrs(t, input, newSha);
      return { kind: 'advanced', sha: newSha, alreadyAdvanced: false };
    }
    const said = `${r.stdout}\n${r.stderr}`;
    if (/stale info|fetch first|non-fast-forward/.test(said)) {
      const now = await tipOf(t, targetBranch);
      if (now === newSha) return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
      return { kind: 'moved', expectedSha, actualSha: now };
    }
    if (/GH006|GH013|protected branch|declined/i.test(said))
      return {
        kind: 'rejected',
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail:
          `GitHub refused the push to ${targetBranch} (${firstRefusal(said)}). With landing mode push the railyard ` +
          `App must be on the bypass list of the rules protecting ${targetBranch}; or set the queue's landing mode to api.`,
      };
    throw new Error(`git push to ${repositoryLabel(t.repo)} failed: ${r.stderr.trim().slice(0, 300)}`);
  }

  /**
   * A pushed squash or rebase leaves GitHub with PRs whose heads it cannot see merged: close them and
   * say where they landed. Best effort: the target already moved, which is what matters.
   */
  async function closeLandedPrs(t: Target, input: AdvanceTargetInput, sha: string): Promise<void> {
    if ((input.mergeMethod ?? 'merge_commit') === 'merge_commit') return;
    for (const pr of input.prs ?? []) {
      try {
        await t.client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...t.params,
          issue_number: pr.number,
          body: `Merged by railyard into \`${input.targetBranch}\` as ${sha} (the commit its test run tested).`,
        });
        await t.client.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...t.params,
          pull_number: pr.number,
          state: 'closed',
        });
      } catch {
        // The PR stays open on GitHub; the queue records it merged either way.
      }
    }
  }

  async function landByApi(t: Target, input: AdvanceTargetInput): Promise<AdvanceTargetResult> {
    const { expectedSha, newSha, targetBranch } = input;
    const prs = input.prs ?? [];
    const method = API_METHOD[input.mergeMethod ?? 'merge_commit'];
    const heads = await checkHeads(t, prs);
    if (heads.kind === 'pr_closed')
      return { kind: 'pr_closed', prNumber: heads.prNumber, reason: 'PR_CLOSED' };
    if (heads.kind === 'pr_moved') return { ...heads, reason: 'PR_UPDATED_AT_MERGE_TIME' };
    const merged = [...heads.merged];
    // Nothing of this landing merged yet: the target must still be where the run was built.
    if (merged.length === 0) {
      const current = await tipOf(t, targetBranch);
      if (current !== expectedSha) return { kind: 'moved', expectedSha, actualSha: current };
    }
    let tip: string | null = null;
    for (const pr of prs) {
      if (merged.includes(pr.number)) continue;
      try {
        const r = await t.client.request<{ sha: string; merged: boolean }>(
          'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
          { ...t.params, pull_number: pr.number, sha: pr.headSha, merge_method: method },
        );
        tip = r.data.sha;
        merged.push(pr.number);
      } catch (err) {
        if (!(err instanceof GitHubApiError) || ![405, 409, 422, 403].includes(err.status)) throw err;
        if (err.status === 409)
          return {
            kind: 'pr_moved',
            prNumber: pr.number,
            expectedSha: pr.headSha,
            actualSha: (await readPull(t, pr.number))?.head.sha ?? pr.headSha,
            reason: 'PR_UPDATED_AT_MERGE_TIME',
          };
        const now = merged.length > 0 ? await tipOf(t, targetBranch) : null;
        return {
          kind: 'rejected',
          reason: 'GITHUB_API_MERGE_PR_FAILED',
          detail:
            `GitHub refused to merge #${pr.number} (${err.status}${err.reason ? `: ${err.reason}` : ''}). With landing ` +
            `mode api the PR itself must satisfy ${targetBranch}'s protection (reviews, its own required checks) and ` +
            `the repository must allow the ${method} method.`,
          ...(merged.length > 0 && now !== null
            ? {
                merged: {
                  prs: prs.filter((p) => merged.includes(p.number)).map((p) => p.number),
                  tipSha: now,
                },
              }
            : {}),
        };
      }
    }
    const finalTip = tip ?? (await tipOf(t, targetBranch));
    if (finalTip === null) return { kind: 'moved', expectedSha, actualSha: null };
    const warning = await treeMismatch(t, finalTip, newSha, targetBranch);
    return {
      kind: 'advanced',
      sha: finalTip,
      alreadyAdvanced: tip === null,
      ...(warning ? { warning } : {}),
    };
  }

  /**
   * Why GitHub will not merge an open PR yet, as a sentence for its record and comment. For `blocked`,
   * the required checks of its base are compared with what its head reported, so a check that will
   * never run is named; otherwise it is reviews or conversations (REST does not say which).
   */
  async function blockedBy(t: Target, wire: PullWire): Promise<string> {
    if (wire.draft) return 'it is a draft: mark it ready for review';
    if (wire.mergeable === null) return 'GitHub is still computing whether it can merge';
    if (wire.mergeable_state === 'blocked') {
      const repo = { owner: t.repo.owner, name: t.repo.name };
      const required = await requiredFromProtection(t.client, repo, wire.base.ref);
      if (required.kind === 'found') {
        const reports = await readCommitChecks(t.client, repo, wire.head.sha);
        const passed = new Set(reports.filter((r) => r.state === 'success').map((r) => r.context));
        const missing = required.contexts.filter((c) => !passed.has(c));
        const silent = missing.filter((c) => !reports.some((r) => r.context === c));
        if (missing.length > 0)
          return `it waits for the required check${missing.length > 1 ? 's' : ''} ${quoted(missing)} on its head commit${
            silent.length > 0
              ? ` (${quoted(silent)} ha${silent.length > 1 ? 've' : 's'} not reported at all)`
              : ''
          }`;
      }
      return 'GitHub blocks it until its required reviews (or resolved conversations) allow a merge';
    }
    return `GitHub does not allow it to merge yet (${wire.mergeable_state})`;
  }

  /** Null when `landed` has the tested tree; otherwise a sentence for the PR's record. */
  async function treeMismatch(
    t: Target,
    landed: string,
    tested: string,
    branch: string,
  ): Promise<string | null> {
    const access = await fetch(t, [`+${names.branchRef(branch)}:${names.branchRef(branch)}`]);
    await ensureCommit(t, tested);
    const tree = async (sha: string) =>
      (
        await expectSuccess(access.git, ['rev-parse', '--verify', '--end-of-options', `${sha}^{tree}`], {
          dir: access.dir,
        })
      ).trim();
    const [a, b] = await Promise.all([tree(landed), tree(tested)]);
    return a === b
      ? null
      : `GitHub's merge wrote ${landed} to ${branch}, whose tree differs from the tested commit ${tested}: the target holds an untested tree.`;
  }

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
        },
      };
    },

    async readBranchTip(repo, branch) {
      const t = await target(repo);
      if (t === null) return { kind: 'not_found', what: 'repository' };
      const sha = await tipOf(t, branch);
      return sha === null ? { kind: 'not_found', what: 'branch' } : { kind: 'found', sha };
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
      for (const pr of input.prs) {
        await ensureCommit(t, pr.headSha);
        if ((await readRef(access, names.pullRequestRef(pr.number))) !== pr.headSha)
          await expectSuccess(access.git, ['update-ref', names.pullRequestRef(pr.number), pr.headSha], {
            dir: access.dir,
          });
      }
      const composed = await composePullRequests(access, input.baseSha, input.prs, input.mergeMethod);
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
      return (input.landing ?? 'push') === 'api' ? landByApi(t, input) : landByPush(t, input);
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
      const landed = await host.advanceTarget({ ...input, expectedSha, newSha, prs: [pr] });
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
      }
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

    async checkout({ repo, sha, directory }) {
      names.assertValid('sha', names.checkSha(sha));
      const access = await ensureCommit(await mustTarget(repo), sha);
      const dir = resolve(directory);
      await mkdir(dirname(dir), { recursive: true });
      await expectSuccess(
        access.git,
        ['clone', '--quiet', '--shared', '--no-checkout', '--', access.dir, dir],
        {
          dir: dirname(dir),
        },
      );
      await expectSuccess(access.git, ['checkout', '--quiet', '--detach', sha], { dir });
      await expectSuccess(access.git, ['remote', 'remove', 'origin'], { dir });
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

/** GitHub would let the PR merge now (its reviews, its own required checks, no draft). */
function readyOnGitHub(wire: PullWire): boolean {
  if (wire.draft) return false;
  if (wire.mergeable !== true) return false;
  return ['clean', 'unstable', 'has_hooks', 'behind'].includes(wire.mergeable_state);
}

/**
 * GitHub's own reason (`GH006: Protected branch update failed…`) rather than git's porcelain line for
 * the ref (`! <sha>:<ref> [remote rejected] (pre-receive hook declined)`), which says only that a hook
 * refused.
 */
function firstRefusal(said: string): string {
  const lines = said.split('\n');
  const line =
    [/GH0\d\d/, /protected branch/i, /declined/i]
      .map((pattern) => lines.find((l) => pattern.test(l)))
      .find((l) => l !== undefined) ?? 'refused';
  return line
    .replace(/^remote:\s*/, '')
    .replace(/^error:\s*/, '')
    .trim()
    .slice(0, 200)
    .replace(/[.\s]+$/, '');
}

const quoted = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');
