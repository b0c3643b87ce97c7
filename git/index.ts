/**
 * The git host port and its `local` adapter: what the rest of railyard imports from git.
 */
export type * from './git-host';
export {
  createLocalGitHost,
  DEFAULT_IDENTITY,
  type LocalGitHost,
  type LocalGitHostOptions,
} from './local-git-host';
export { initBareRepository, repositoryPath } from './repository-path';
export { classifyPullRequestChange, type PullRequestChange } from './pr-events';
export {
  InvalidGitNameError,
  TEST_BRANCH_PREFIX,
  checkBranchName,
  checkPullRequestNumber,
  checkRepositoryKey,
  checkSha,
  pullRequestRef,
  testBranchName,
  type NameCheck,
} from './names';
