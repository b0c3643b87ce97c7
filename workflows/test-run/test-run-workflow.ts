/**
 * testRunWorkflow: one CI run of the `command` runner. The queue's buildTestRun activity starts it on
 * the branch it built (not a child of the queue: the queue's continue-as-new does not end it, and its
 * start and end cost the queue's history nothing), by the contract's type name and input, so the two
 * workflows share only the contract. It reports the result to the queue by workflow id, which reaches
 * the queue's current run. Cancelling this workflow cancels the run, which kills the command.
 *
 * A run has three activities, so that the code under test never shares a process, a user or a
 * credential with the control plane (issue 17, ADR 0012; issue 24, ADR 0014), and no more, because each
 * costs its workflow history (issue 25). The two control-plane steps are local activities, on the
 * worker that runs this workflow: one marker event each, in the workflow task that starts them,
 * instead of three events and a workflow task of their own. Both are idempotent (below), so a step on a
 * worker that died is made again whole when the workflow task is retried elsewhere (within the task's
 * timeout, seconds); a long one keeps the task alive by heartbeating it, which the SDK does for us.
 *  1. startTestRun on the control task queue: one of the organisation's executor slots (the fair-share
 *     cap), then the command from the tested commit and the commit staged as a bundle for the executor,
 *     behind a content token. Without a free slot it prepares nothing and the run waits until a run of
 *     the organisation that ends wakes it (runSlotFreedSignal), or 30 s, and asks again;
 *  2. executeTestRun on the control task queue, completed asynchronously: the worker stores it as a job,
 *     an executor takes it from the API (HTTPS, no Temporal), checks out the content, runs the command
 *     in its sandbox and reports a packed report (verdict, JUnit files, log) that the API completes the
 *     activity with;
 *  3. finishTestRun on the control task queue: the log stored, the JUnit results judged, the result
 *     signalled to the queue, and the slot and content token ended when PostgreSQL answers within
 *     seconds. The activity signals rather than this workflow: a signal from here costs it two events
 *     and a workflow task more.
 * The slot and the content token end with the run, whatever happens: a run that finishTestRun did not
 * end gets endTestRun, non-cancellable, after the queue heard the verdict.
 *
 * Invariant: the queue hears the result of each run, from finishTestRun for a recorded run and from
 * here for a config problem or an error; a retried finishTestRun may tell it twice, and the queue takes
 * only the first result of a run still in progress (a result for a run it no longer tracks is ignored).
 */
import {
  ActivityFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  condition,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  runSlotFreedSignal,
  testRunFinishedSignal,
  type RunCommandResult,
  type TestRunWorkflowInput,
  type TestRunWorkflowResult,
} from '../../contract';

const NO_TIMEOUT_BOUND_MS = 525_600 * 60_000;
/** A run waiting for a slot asks again after this, even if no run woke it. */
const SLOT_ASK_AGAIN_MS = 30_000;

export async function testRunWorkflow(input: TestRunWorkflowInput): Promise<TestRunWorkflowResult> {
  // The queue enforces the testing timeout; this bound only stops a runaway activity. A queue
  // without a testing timeout (0) gets its longest one (525,600 minutes, a year).
  const runBoundMs = (input.timeoutMs > 0 ? input.timeoutMs : NO_TIMEOUT_BOUND_MS) + 5 * 60_000;
  const queue = getExternalWorkflowHandle(input.queueWorkflowId);
  const report = (result: RunCommandResult) =>
    queue.signal(testRunFinishedSignal, { runId: input.runId, result });
  try {
    const result = await runOnExecutor(input, runBoundMs, report);
    return result.kind;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const detail = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    await queue.signal(testRunFinishedSignal, { runId: input.runId, result: { kind: 'error', detail } });
    return 'error';
  }
}

/**
 * The run on an executor; the queue hears the verdict before any cleanup finishTestRun left undone,
 * which needs PostgreSQL: a verdict reached during a database outage is not held up until the database
 * is back. `report` tells it of a config problem.
 */
async function runOnExecutor(
  input: TestRunWorkflowInput,
  runBoundMs: number,
  report: (result: RunCommandResult) => Promise<void>,
): Promise<RunCommandResult> {
  // The control plane's steps need PostgreSQL: through an outage they retry until it is back (the
  // queue's testing timeout bounds the run as a whole); refusals that cannot change are non-retryable.
  // A worker killed mid-step costs seconds, not the step's whole timeout: the local steps are retried
  // with their workflow task, whose timeout is seconds.
  const retry = { initialInterval: '1 second', maximumInterval: '30 seconds' } as const;
  const control = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry });
  const { startTestRun, finishTestRun } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    retry,
  });
  const { executeTestRun } = proxyActivities<Activities>({
    startToCloseTimeout: runBoundMs,
    // The executor heartbeats every 5 s through the API (and the API for a job no executor took yet); a
    // dead executor's run is retried elsewhere after this.
    heartbeatTimeout: '20 seconds',
    retry: { maximumAttempts: 3, initialInterval: '5 seconds', nonRetryableErrorTypes: ['ContentGone'] },
  });
  const run = {
    organisationId: input.organisationId,
    repo: input.repo,
    runId: input.runId,
    branchName: input.branchName,
    headSha: input.headSha,
    timeoutMs: input.timeoutMs,
    ...(input.targetBranch ? { targetBranch: input.targetBranch } : {}),
  };
  let ended = false;
  try {
    // Woken by the run that frees a slot (runSlotFreedSignal); asks again every 30 s regardless, which
    // also keeps its place among the waiters alive.
    let freed = false;
    setHandler(runSlotFreedSignal, () => {
      freed = true;
    });
    let prepared;
    for (;;) {
      freed = false;
      prepared = await startTestRun({ ...run, workflowId: workflowInfo().workflowId, leaseMs: runBoundMs });
      if (prepared.kind !== 'waiting') break;
      await condition(() => freed, SLOT_ASK_AGAIN_MS);
    }
    if (prepared.kind === 'config_problem') {
      await report(prepared);
      return prepared;
    }
    const packed = await executeTestRun({
      runId: input.runId,
      repo: input.repo,
      branchName: input.branchName,
      headSha: input.headSha,
      command: prepared.command,
      ...(prepared.junitGlobs ? { junitGlobs: prepared.junitGlobs } : {}),
      timeoutMs: input.timeoutMs,
      ...(input.network === false ? { network: false } : {}),
      ...(input.onlyTests && input.onlyTests.length > 0 ? { onlyTests: input.onlyTests } : {}),
      contentToken: prepared.contentToken,
    });
    const finished = await finishTestRun(run, packed, input.queueWorkflowId);
    ended = finished.ended;
    return finished.result;
  } finally {
    if (!ended) await CancellationScope.nonCancellable(() => control.endTestRun({ runId: input.runId }));
  }
}
