/**
 * Judging a run's JUnit reports: the flaky-test service reads them and applies quarantine, and what it
 * could not see counts against the run.
 *
 * Rules and invariants:
 * - The judge is a dependency (`JunitJudge`, which flaky/service.ts's FlakyStore satisfies): test-runs/
 *   stands below flaky/ and never imports it.
 * - Quarantine forgives only the failures it can name (engine/verdict.ts). A failed run whose JUnit
 *   files could not all be read, or were not all collected (`junitTruncated`), also failed in tests
 *   nobody judged: each unreadable file, and the files left out, become a failed, unquarantined test,
 *   so the run is never rescued (the rule of flaky/ingest/judge.ts's quarantinedRunPasses).
 * - A run that did not fail keeps the judged tests only: nothing is added to a passing run.
 */
import type { RepositoryKey, TestCaseVerdict } from '../contract';
import type { JunitFile, TestOutcome } from '../executor/test-runner';

/** What test-runs asks of the flaky-test service (flaky/service.ts's `judgeJunitFiles`). */
export interface JunitJudge {
  judgeJunitFiles(input: {
    organisationId: string;
    repo: RepositoryKey;
    runId: string;
    headSha: string;
    branchName?: string;
    targetBranch?: string;
    junitFiles: readonly JunitFile[];
  }): Promise<{ verdicts: readonly JudgedTest[]; problems: readonly string[] }>;
}

/** A verdict as the judge gives it: with a failed test's failure in one line, when it had one. */
export interface JudgedTest extends TestCaseVerdict {
  failure?: string;
}

/** A failed test and its failure in one line, for the run's log (failing-tests.ts). */
export interface TestFailure {
  name: string;
  quarantined: boolean;
  failure: string | null;
}

/**
 * The flaky-test service's judgement of a run's JUnit files (results ingested, quarantine applied):
 * a verdict per test read, one sentence per file that could not be read, and the failed tests with
 * their failures (for the log only: `tests` is what travels to the workflow, without messages).
 */
export type JudgeTests = (input: {
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  headSha: string;
  branchName: string;
  targetBranch?: string;
  junitFiles: JunitFile[];
}) => Promise<{ tests: TestCaseVerdict[]; problems: string[]; failures?: TestFailure[] }>;

/** JudgeTests by the flaky-test service: the run's results ingested, each test's quarantine applied. */
export function judgeTestsWith(flaky: JunitJudge): JudgeTests {
  return async ({ organisationId, repo, runId, headSha, branchName, targetBranch, junitFiles }) => {
    const { verdicts, problems } = await flaky.judgeJunitFiles({
      organisationId,
      repo,
      runId,
      headSha,
      branchName,
      ...(targetBranch ? { targetBranch } : {}),
      junitFiles,
    });
    return {
      tests: verdicts.map(({ name, status, quarantined, flaky, passedOnTarget }) => ({
        name,
        status,
        quarantined,
        ...(flaky ? { flaky: true } : {}),
        ...(passedOnTarget ? { passedOnTarget } : {}),
      })),
      problems: [...problems],
      failures: verdicts
        .filter((v) => v.status === 'failed')
        .map(({ name, quarantined, failure }) => ({ name, quarantined, failure: failure ?? null })),
    };
  };
}

/** What a failed run's JUnit did not let the judge see, as failures quarantine cannot forgive. */
export const JUNIT_LEFT_OUT =
  'JUnit reports left out (over the count or size limits): their tests were not judged';
export const unreadableJunit = (problem: string) => `unreadable JUnit report: ${problem}`;

/** The run's tests: the judged ones, and for a failed run those nobody could judge, as failures. */
export function testsOfRun(
  outcome: TestOutcome,
  judged: { tests: TestCaseVerdict[]; problems: readonly string[] },
  junitTruncated: boolean,
): TestCaseVerdict[] {
  return outcome === 'failed'
    ? [...judged.tests, ...unjudged(judged.problems, junitTruncated)]
    : judged.tests;
}

function unjudged(problems: readonly string[], truncated: boolean): TestCaseVerdict[] {
  const names = [...problems.map(unreadableJunit), ...(truncated ? [JUNIT_LEFT_OUT] : [])];
  return names.map((name) => ({ name, status: 'failed', quarantined: false }));
}
