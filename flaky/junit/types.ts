/**
 * What the JUnit parser returns: one entry per test (per identity key within the file), each with
 * its attempts in the order they ran. The last attempt is the test's final result.
 *
 * Invariants: `attempts` is never empty; `attempts[i].index === i`; `status` equals the status
 * of the last attempt; identity fields are already shortened to the name limit.
 */
import { type BoundedText } from './limits';

export type Dialect = 'jest' | 'pytest' | 'go' | 'surefire' | 'playwright' | 'generic';

export type AttemptStatus = 'passed' | 'failed' | 'error' | 'skipped';

/**
 * Where an attempt came from in the XML:
 * - `testcase`: the `<testcase>` itself (its `<failure>`/`<error>`/`<skipped>` or no child = pass);
 * - `flakyFailure` … `rerunError`: a Surefire-style retry child (Surefire, Playwright `includeRetries`);
 * - `repeated`: the same test written again later in the file (gotestsum `--rerun-fails`, per-attempt reporters);
 * - `rerun_inferred`: an earlier repeated pytest testcase with no outcome child; pytest-rerunfailures
 *   writes reruns that way, and it only reruns failures, so the attempt failed;
 * - `invocations`: earlier attempts known only from an invocation count property (jest-junit with
 *   `testResult.invocations`); Jest retries only failures, so they failed.
 */
export type AttemptOrigin =
  | 'testcase'
  | 'flakyFailure'
  | 'flakyError'
  | 'rerunFailure'
  | 'rerunError'
  | 'repeated'
  | 'rerun_inferred'
  | 'invocations';

export interface FailureDetail {
  readonly message?: string;
  readonly type?: string;
  readonly body?: BoundedText;
}

export interface ParsedAttempt {
  readonly index: number;
  readonly status: AttemptStatus;
  readonly origin: AttemptOrigin;
  readonly durationMs?: number;
  /** Present for `failed` and `error` attempts that carried details. */
  readonly failure?: FailureDetail;
  /** Present for `skipped` attempts that carried a reason. */
  readonly skip?: FailureDetail;
  readonly systemOut?: BoundedText;
  readonly systemErr?: BoundedText;
}

export interface ParsedTestCase {
  /** Name of the nearest enclosing `<testsuite>` ('' when none). */
  readonly suite: string;
  readonly classname: string;
  readonly name: string;
  /** Source file, when the dialect gives or implies one. */
  readonly file?: string;
  readonly line?: number;
  /** Part of the test identity: the suite, or for Playwright the project. */
  readonly parent: string;
  /** Enclosing describe blocks, where the dialect exposes them (Playwright). */
  readonly describePath?: readonly string[];
  readonly status: AttemptStatus;
  readonly attempts: readonly ParsedAttempt[];
}

export interface ParsedJunitFile {
  readonly fileName: string;
  readonly dialect: Dialect;
  readonly testCases: readonly ParsedTestCase[];
  readonly summary: {
    readonly tests: number;
    readonly attempts: number;
    /** Final statuses, one per test. */
    readonly passed: number;
    readonly failed: number;
    readonly error: number;
    readonly skipped: number;
    /** Tests with more than one attempt. */
    readonly retried: number;
  };
}
