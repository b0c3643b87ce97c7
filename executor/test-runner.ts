/**
 * The `TestRunner` port: runs one test run of one test branch and reports its verdict. Adapters:
 * `command` (a shell command in a checkout, command-runner.ts) and later `statuses` (external CI).
 *
 * Rules every adapter keeps:
 *  - The verdict is a result kind: `passed`, `failed`, `timeout` (Trunk's TEST_RUN_TIMEOUT) or
 *    `cancelled` (the run was aborted through `signal`). Infrastructure failures (no checkout, no
 *    disk) throw, so that the activity is retried.
 *  - A run may be started twice for the same `runId` (activity retries); each start is a fresh run
 *    and the last one's log replaces the earlier one's.
 *  - `junitFiles` are bounded in count and size; they are meant for the flaky-test ingestion inside
 *    the same activity, not for a workflow payload (Temporal limits payloads to a few MB).
 */
import type { RepositoryKey } from '../contract';

export type TestOutcome = 'passed' | 'failed' | 'timeout' | 'cancelled';

/** The variable a test command reads the tests it may run alone from, one per line (docs/api-compat.md). */
export const ONLY_TESTS_ENV = 'RAILYARD_ONLY_TESTS';

export interface TestRunInput {
  /** The testRunId: the uuid in the test branch name. Letters, digits, `.`, `_` and `-` only. */
  runId: string;
  repo: RepositoryKey;
  branchName: string;
  /** The commit to test: the test branch's head when the run was built. */
  headSha: string;
  /** The queue's test command, run by `bash -c` in the checkout. */
  command: string;
  /** The testing timeout (testingTimeoutMinutes); 0 = none. */
  timeoutMs: number;
  /** Globs (relative to the checkout) of the JUnit XML files the command writes. */
  junitGlobs?: string[];
  /** Run only these tests where the command supports it: given in RAILYARD_ONLY_TESTS, one per line. */
  onlyTests?: string[];
  /** Aborting cancels the run: its processes are killed and the outcome is `cancelled`. */
  signal?: AbortSignal;
  /** Called periodically while the run lasts (Temporal activity heartbeats). */
  heartbeat?: () => void;
}

export interface JunitFile {
  /** Relative to the checkout, with `/` separators. */
  path: string;
  xml: string;
}

export interface TestRunResult {
  outcome: TestOutcome;
  /** The command's exit code, or null when it was ended by a signal. */
  exitCode: number | null;
  durationMs: number;
  /** Where the combined stdout and stderr were written. */
  logPath: string;
  junitFiles: JunitFile[];
  /** Set when JUnit files were left out because of the count or size bounds. */
  junitTruncated: boolean;
}

export interface TestRunner {
  run(input: TestRunInput): Promise<TestRunResult>;
}
