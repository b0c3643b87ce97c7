/**
 * The test-run workflow's contract: the input the queue workflow starts it with, and the result it
 * reports back to the queue (testRunFinishedSignal, queue-messages.ts). The queue starts it by type name
 * and id (workflow-types.ts, ids.ts), so the two workflows share these types and nothing else.
 *
 * RunCommandResult is also what the `runTestCommand` activity answers: the workflow passes it on as is,
 * so the queue judges exactly what the runner saw.
 */
import { defineSignal } from '@temporalio/workflow';
import type { RepositoryKey } from './repository-key';

export interface TestRunWorkflowInput {
  queueWorkflowId: string;
  organisationId: string;
  runId: string;
  repo: RepositoryKey;
  branchName: string;
  headSha: string;
  /** testingTimeoutMinutes in ms; 0 = none. */
  timeoutMs: number;
  /** The queue's testNetwork: false runs the command with no network at all; absent = on. */
  network?: boolean;
  /**
   * Run only these tests where the command supports it (issue 28: a flaky retry's failed tests, a
   * bisection chunk's suspects; engine/failed-tests.ts bounds them): the command reads them from
   * RAILYARD_ONLY_TESTS, one per line (executor/test-runner.ts). Absent: the whole suite.
   */
  onlyTests?: string[];
  /** The queue's target branch: the judge names where each failed test last passed there. */
  targetBranch?: string;
}

export interface TestCaseVerdict {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  quarantined: boolean;
  /**
   * A failed test the flaky-test service knows as flaky (status `flaky`, or quarantined), which the
   * queue may retry (engine/flaky-retry.ts); absent otherwise.
   */
  flaky?: boolean;
  /** A failed test's latest passing commit on the queue's target branch, when known (issue 28). */
  passedOnTarget?: string;
}

export type RunCommandResult =
  | {
      kind: 'finished';
      outcome: 'passed' | 'failed' | 'timeout';
      tests: TestCaseVerdict[];
      logPath: string;
      /** The command's exit code, null when a signal ended it; absent from older results. */
      exitCode?: number | null;
    }
  | {
      kind: 'config_problem';
      reason:
        | 'START_TEST_RUN_CONFIG_NOT_FOUND'
        | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'
        | 'START_TEST_RUN_CONFIG_BAD_VERSION';
      detail: string;
    }
  | { kind: 'cancelled' };

/** The workflow's own result: how the run ended, for the Temporal UI (the queue hears by signal). */
export type TestRunWorkflowResult = RunCommandResult['kind'] | 'error';

export type TestRunWorkflow = (input: TestRunWorkflowInput) => Promise<TestRunWorkflowResult>;

/**
 * To a test run waiting for one of its organisation's executor slots: one was freed, try again now
 * (test-runs/store/run-slots.ts). A lost signal costs a wait of at most 30 s: waiters ask again.
 */
export const runSlotFreedSignal = defineSignal('runSlotFreed');
