/**
 * The git host a repository lives on, chosen by its `repo.host`: the configured GitHub host (github.com
 * or a GitHub Enterprise Server host, compared case-insensitively) goes to the `github` adapter, every
 * other host to the embedded `local` one. With no GitHub App configured everything is local, exactly as
 * before GitHub existed.
 */
import type { GitHost } from './git-host';
import type { RepositoryKey } from '../contract';

export function createRoutingGitHost(local: GitHost, gitHub?: { host: string; gitHost: GitHost }): GitHost {
  if (!gitHub) return local;
  const host = gitHub.host.toLowerCase();
  const pick = (repo: RepositoryKey): GitHost => (repo.host.toLowerCase() === host ? gitHub.gitHost : local);
  return {
    testBranchPrefix: (repo) => pick(repo).testBranchPrefix(repo),
    readPullRequest: (repo, n, target) => pick(repo).readPullRequest(repo, n, target),
    readBranchTip: (repo, branch) => pick(repo).readBranchTip(repo, branch),
    commitTree: (repo, sha) => pick(repo).commitTree(repo, sha),
    branchContains: (repo, branch, sha) => pick(repo).branchContains(repo, branch, sha),
    buildTestBranch: (input) => pick(input.repo).buildTestBranch(input),
    advanceTarget: (input) => pick(input.repo).advanceTarget(input),
    directMerge: (input) => pick(input.repo).directMerge(input),
    deleteBranch: (repo, branch, prefix) => pick(repo).deleteBranch(repo, branch, prefix),
    pushPreflightBranch: (input) => pick(input.repo).pushPreflightBranch(input),
    listTestPullRequests: (repo, target, prefix) => pick(repo).listTestPullRequests(repo, target, prefix),
    readFileAtCommit: (repo, sha, path) => pick(repo).readFileAtCommit(repo, sha, path),
    checkout: (input) => pick(input.repo).checkout(input),
    hasChecks: (repo) => pick(repo).hasChecks(repo),
    readChecks: (repo, sha) => pick(repo).readChecks(repo, sha),
    requiredChecks: (repo, target, sha) => pick(repo).requiredChecks(repo, target, sha),
  };
}
