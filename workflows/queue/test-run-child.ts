/**
 * The test-run workflow of a `command` run, seen from the queue: how it is started (by the build
 * activity, or by the queue when the build started none) and how it is cancelled.
 *
 * Rules: the test run is an abandoned child (ParentClosePolicy.ABANDON), so the queue's continue-as-new
 * does not end it; Temporal refuses a start and a cancel of the same child in one workflow task, so a
 * run cancelled while its child was being started is cancelled only once the start is recorded; a
 * cancel of a run that already finished is not an error.
 */
import { ParentClosePolicy, getExternalWorkflowHandle, startChild, workflowInfo } from '@temporalio/workflow';
import type { TestRunStart } from '../../activities/merge-queue/types';
import {
  queueWorkflowId,
  TEST_RUN_WORKFLOW_TYPE,
  testRunWorkflowId,
  type TestRunWorkflow,
} from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';

/**
 * How the build activity starts the run's test-run workflow (command runner). `onlyTests` (the engine's,
 * bounded) is not carried: a run started later by startCommandRun runs the whole suite, which is
 * always correct, only slower.
 */
export function testRunStart(ctx: QueueContext, run: RunMeta, onlyTests?: readonly string[]): TestRunStart {
  const { carried: c, key } = ctx;
  return {
    workflowId: testRunWorkflowId(key, run.runId),
    taskQueue: workflowInfo().taskQueue,
    staticSummary: `Test run of PR ${run.prs.map((n) => `#${n}`).join(', ')}${run.bisection ? ' (bisection)' : ''}`,
    input: {
      queueWorkflowId: queueWorkflowId(key),
      organisationId: key.organisationId,
      runId: run.runId,
      repo: key.repo,
      // The judge names where a failed test last passed on it (issue 28, "it passed on main at C").
      targetBranch: key.targetBranch,
      timeoutMs: c.engine.config.testingTimeoutMinutes * 60_000,
      // Read when the run starts: a change applies to runs started after it.
      network: c.runner.testNetwork !== false,
      ...(onlyTests && onlyTests.length > 0 ? { onlyTests: [...onlyTests] } : {}),
    },
  };
}

/** Starts the run's test-run workflow as an abandoned child: only when its build did not. */
export async function startCommandRun(ctx: QueueContext, run: RunMeta): Promise<void> {
  const start = testRunStart(ctx, run);
  run.child = start.workflowId;
  await startChild<TestRunWorkflow>(TEST_RUN_WORKFLOW_TYPE, {
    workflowId: start.workflowId,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ ...start.input, branchName: run.branchName!, headSha: run.headSha! }],
    staticSummary: start.staticSummary,
  });
  // Temporal refuses a start and a cancel of the same child in one workflow task, so a run cancelled
  // while its child was being started is cancelled only now that the start is recorded.
  run.childStarted = true;
  if (run.status === 'cancelled') await cancelTestRunWorkflow(start.workflowId);
}

/** Cancels a test-run workflow; one that already finished is left as it is. */
export async function cancelTestRunWorkflow(workflowId: string): Promise<void> {
  await getExternalWorkflowHandle(workflowId)
    .cancel()
    .catch(() => undefined); // already finished
}
