/**
 * One GitHub repository as the `github` git host reaches it: which installation covers it, its REST
 * client, and git against it through the worker's mirror (fetch, push), plus the REST reads every
 * operation starts from (a PR, a branch tip, the heads of the PRs a run tests).
 *
 * Invariants:
 * - A repository no linked installation covers has no target: nothing is read from or written to it.
 * - The token reaches git only through mirror.ts (`http.extraHeader` in GIT_CONFIG_* variables).
 * - A token git is refused with (revoked, expired early) is dropped and git runs once more with a new
 *   one, as the REST client does on a 401: a retry never resends a dead token.
 */
import { commitExists, type RepoAccess } from '../../git/commits';
import type { GitIdentity } from '../../git/git-cli';
import { createMirrors, type Mirrors, type Remote } from '../../git/mirror';
import * as names from '../../git/names';
import type { GitHubAppAuth } from '../app/app-auth';
import { GitHubApiError, type GitHubClients, type GitHubRest } from '../app/rest-client';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import type { ProcessRunner } from '../../platform/process-runner';

export interface PullWire {
  number: number;
  state: string;
  merged?: boolean;
  draft?: boolean;
  title: string;
  user: { login: string } | null;
  head: { sha: string; ref?: string; repo?: { full_name: string } | null };
  base: { ref: string };
  mergeable: boolean | null;
  mergeable_state: string;
  merge_commit_sha?: string | null;
  /** The PR's description (`merge-commit-title:` lines, contract/commit-message.ts). */
  body?: string | null;
}

export interface Target {
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

/** As GitHubGitHostOptions (github-git-host.ts), with the committer chosen. */
export interface GitHubRemoteOptions {
  mirrorRoot: string;
  gitUrl: string;
  installationOf: (repo: RepositoryKey) => Promise<number | null>;
  clients: GitHubClients;
  auth: Pick<GitHubAppAuth, 'installationToken' | 'forget'>;
  identity: GitIdentity;
  gitTimeoutMs?: number;
  /** Who starts git's processes (the worker's process broker); this process by default. */
  runner?: ProcessRunner;
}

export type HeadCheck =
  | { kind: 'ok'; merged: number[] }
  | { kind: 'pr_closed'; prNumber: number }
  | { kind: 'pr_moved'; prNumber: number; expectedSha: string; actualSha: string };

export interface GitHubRemote {
  readonly mirrors: Mirrors;
  /** The repository's installation, client and remote; null when no linked installation covers it. */
  target: (repo: RepositoryKey) => Promise<Target | null>;
  /** As `target`, throwing a sentence that says to link an installation. */
  mustTarget: (repo: RepositoryKey) => Promise<Target>;
  /** Fetches refspecs (or bare commit ids) into the mirror; throws when git fails. */
  fetch: (t: Target, specs: string[]) => Promise<RepoAccess>;
  /** Makes sure `sha` is in the mirror, fetching it by id when it is not. */
  ensureCommit: (t: Target, sha: string) => Promise<RepoAccess>;
  readPull: (t: Target, n: number) => Promise<PullWire | null>;
  tipOf: (t: Target, branch: string) => Promise<string | null>;
  push: (t: Target, args: string[]) => ReturnType<Mirrors['withRemote']>;
  /** Where each PR stands on GitHub now, against the sha the queue tested. */
  checkHeads: (
    t: Target,
    prs: readonly { number: number; headSha: string }[],
    opts?: { closedMayBuild?: boolean },
  ) => Promise<HeadCheck>;
}

export function createGitHubRemote(options: GitHubRemoteOptions): GitHubRemote {
  const mirrors = createMirrors({
    root: options.mirrorRoot,
    identity: options.identity,
    gitTimeoutMs: options.gitTimeoutMs,
    runner: options.runner,
  });
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
  ): Promise<HeadCheck> {
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

  return { mirrors, target, mustTarget, fetch, ensureCommit, readPull, tipOf, push, checkHeads };
}
