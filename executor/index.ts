/**
 * The test runner port and its `command` adapter: what the rest of railyard imports from
 * executor.
 */
export type * from './test-runner';
export { createCommandRunner, DEFAULT_PASS_ENV, type CommandRunnerOptions } from './command-runner';
export { DEFAULT_JUNIT_GLOBS, DEFAULT_JUNIT_LIMITS, type JunitLimits } from './junit-files';
export {
  REPO_TEST_CONFIG_PATH,
  parseRepoTestConfig,
  readRepoTestConfig,
  type RepoTestConfig,
  type RepoTestConfigLookup,
} from './repo-test-config';
