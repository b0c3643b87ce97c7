/**
 * testRunWorkflow: one CI run of the `command` runner. The queue workflow starts it as an abandoned
 * child (so the queue's continue-as-new does not end it) by the contract's type name and input, so the
 * two workflows share only the contract. It runs the command as a heartbeating activity, and reports
 * the result to the queue by workflow id, which reaches the queue's current run.
 * Cancelling this workflow cancels the activity, which kills the command's process group.
 *
 * Invariant: the queue hears about each run at most once per outcome; a result for a run the queue no
 * longer tracks is ignored by the engine.
 */
import {
  ActivityFailure,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { testRunFinishedSignal, type TestRunWorkflowInput, type TestRunWorkflowResult } from '../contract';

const NO_TIMEOUT_BOUND_MS = 525_600 * 60_000;

export async function testRunWorkflow(input: TestRunWorkflowInput): Promise<TestRunWorkflowResult> {
  const { runTestCommand } = proxyActivities<Activities>({
    // The queue enforces the testing timeout; this bound only stops a runaway activity. A queue
    // without a testing timeout (0) gets its longest one (525,600 minutes, a year).
    startToCloseTimeout: (input.timeoutMs > 0 ? input.timeoutMs : NO_TIMEOUT_BOUND_MS) + 5 * 60_000,
    // The runner heartbeats every 5 s; a dead worker's run is retried elsewhere after this.
    heartbeatTimeout: '20 seconds',
    retry: { maximumAttempts: 3, initialInterval: '5 seconds' },
  });
  const queue = getExternalWorkflowHandle(input.queueWorkflowId);
  try {
    const result = await runTestCommand({
      organisationId: input.organisationId,
      repo: input.repo,
      runId: input.runId,
      branchName: input.branchName,
      headSha: input.headSha,
      timeoutMs: input.timeoutMs,
    });
    await queue.signal(testRunFinishedSignal, { runId: input.runId, result });
    return result.kind;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const detail = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    await queue.signal(testRunFinishedSignal, { runId: input.runId, result: { kind: 'error', detail } });
    return 'error';
  }
}
