/**
 * Quarantine-aware verdict of a finished test run.
 *
 * Rule (DESIGN §4, §7): a failed run whose every failed test is quarantined counts as passed; the
 * quarantine flag arrives with the event (the flaky-test service decided it when the results were
 * ingested), so the verdict is a pure function of the event.
 * Invariants: a failure with no per-test detail, or with no failed test listed (an infrastructure
 * failure, a crashed job), stays a failure: quarantine can only forgive tests it can name. A timeout
 * is never forgiven. A failure judged by the queue's own test command is `TEST_RUN_COMMAND_FAILED`,
 * one judged by CI's required statuses Trunk's `TEST_RUN_REQUIRED_STATUS_FAILED`.
 */
import { assertNever } from './assert-never';
import { type RunJudge, type TestCaseResult, type TestRunOutcome } from './events';

export type Verdict =
  | { passed: true; reason: 'TEST_RUN_PASSED' | 'QUARANTINED_FAILURES_IGNORED' }
  | {
      passed: false;
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' | 'TEST_RUN_COMMAND_FAILED' | 'TEST_RUN_TIMEOUT';
    };

export function verdictOf(
  outcome: TestRunOutcome,
  tests: readonly TestCaseResult[] = [],
  judge: RunJudge = 'statuses',
): Verdict {
  switch (outcome) {
    case 'passed':
      return { passed: true, reason: 'TEST_RUN_PASSED' };
    case 'timeout':
      return { passed: false, reason: 'TEST_RUN_TIMEOUT' };
    case 'failed': {
      const failed = tests.filter((t) => t.status === 'failed');
      if (failed.length > 0 && failed.every((t) => t.quarantined)) {
        return { passed: true, reason: 'QUARANTINED_FAILURES_IGNORED' };
      }
      return {
        passed: false,
        reason: judge === 'command' ? 'TEST_RUN_COMMAND_FAILED' : 'TEST_RUN_REQUIRED_STATUS_FAILED',
      };
    }
    default:
      return assertNever(outcome);
  }
}
