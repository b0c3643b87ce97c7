/**
 * The test-run activities on the control task queue (issue 17): adapters over the test-runs/ room, so
 * that the executor — which runs pull requests' code — needs neither the git root, the mirrors nor the
 * database. What they do, and its rules, is in the room:
 *
 *  - startTestRun: one of the organisation's executor slots (store/run-slots.ts), then, only once it is
 *    held, test-runs/prepare.ts (the command from the tested commit, the commit staged as a git bundle);
 *    a bundle over the limit fails without retry (RunContentTooLarge). One activity, not two: a retry
 *    takes the slot again (the run already holds it) and prepares again (staging is keyed by run);
 *  - endTestRun: the slot released and the run's content token (store/run-content.ts) ended; the oldest
 *    waiting run is woken at once. Idempotent;
 *  - executeTestRun: handed to an executor (issue 24, ADR 0014). The attempt is stored as a job with
 *    its task token (store/executor-jobs.ts) and the activity completes asynchronously: the API
 *    heartbeats, completes or fails it when the executor that claimed the job heartbeats or reports
 *    (test-runs/executor-dispatch.ts). Nothing of the run lives in the worker, so a worker that dies
 *    mid-run loses nothing; the activity's timeouts and retries are the workflow's, as before;
 *  - finishTestRun: test-runs/record.ts (the log kept within a time limit, the JUnit judged by
 *    test-runs/judge.ts's rules: unreadable or missing reports are failures no quarantine forgives), the
 *    result signalled to the queue (testRunFinishedSignal, by workflow id, so its current run hears it;
 *    a queue that ended hears nothing), then endTestRun's work within END_INLINE_MS. An end that fails
 *    or is slow (PostgreSQL down) does not hold up the verdict: the answer says `ended: false` and the
 *    workflow ends the run. A retry after the signal tells the queue again; the queue takes only the
 *    first result of a run still in progress (handlers.ts), so the second changes nothing.
 *
 * Here is only what is Temporal's: heartbeats while a step runs, the activity logger, and the failure
 * types a workflow sees.
 */
import { ApplicationFailure, CompleteAsyncError, Context } from '@temporalio/activity';
import type { RunCommandInput } from './merge-queue/types';
import type { RunCommandResult, TestRunFinishedNotice } from '../contract';
import { RunContentTooLarge } from '../test-runs/store/run-content';
import { unpackRunReport } from '../executor/run-report';
import type { RunSlots } from '../test-runs/store/run-slots';
import type { ExecutorJobs, JobInput } from '../test-runs/store/executor-jobs';
import { type PrepareDeps, type PreparedTestRun, prepareRun } from '../test-runs/prepare';
import { type RecordDeps, recordRun } from '../test-runs/record';
import { whileHeartbeating } from './heartbeat';

/** How long finishTestRun waits for the run's end before leaving it to the workflow's own endTestRun. */
export const END_INLINE_MS = 5_000;

/** startTestRun's answer: no slot free yet (nothing prepared), or the prepared run. */
export type StartedTestRun = { kind: 'waiting' } | PreparedTestRun;

export interface TestRunControlDeps extends PrepareDeps, RecordDeps {
  slots: RunSlots;
  /** Test runs waiting for, or held by, executors. */
  jobs: ExecutorJobs;
  /** Wakes a test-run workflow waiting for a slot (runSlotFreedSignal); absent: waiters ask every 30 s. */
  wake?: (workflowId: string) => Promise<void>;
  /** Signals a run's result to its queue workflow (testRunFinishedSignal); resolves if the queue ended. */
  tellQueue: (queueWorkflowId: string, finished: TestRunFinishedNotice) => Promise<void>;
}

export function createTestRunControlActivities(deps: TestRunControlDeps) {
  return {
    /** The slot, then the run prepared; `waiting` when the organisation has none free (retried by the workflow). */
    startTestRun: (
      input: RunCommandInput & { workflowId: string; leaseMs: number },
    ): Promise<StartedTestRun> =>
      // Heartbeating every 5 s: a worker that dies mid-step is noticed in seconds.
      whileHeartbeating(async () => {
        const { workflowId, leaseMs, ...run } = input;
        const held = await deps.slots.take({
          organisationId: run.organisationId,
          runId: run.runId,
          workflowId,
          leaseMs,
        });
        return held ? prepare(run) : { kind: 'waiting' };
      }, 5_000),

    async endTestRun(input: { runId: string }): Promise<void> {
      await end(input.runId);
    },

    /**
     * The run, on an executor: stored as a job, completed later through the API with the task token
     * (CompleteAsyncError ends this call without completing the activity). Its heartbeats come from the
     * API: while the job waits for an executor, and from the executor's own heartbeats once claimed.
     */
    async executeTestRun(input: JobInput): Promise<Uint8Array> {
      const ctx = Context.current();
      const jobId = await deps.jobs.enqueue({
        taskQueue: ctx.info.taskQueue,
        attempt: ctx.info.attempt,
        taskToken: ctx.info.taskToken,
        input,
      });
      ctx.log.info('test run handed to executors', { runId: input.runId, attempt: ctx.info.attempt, jobId });
      throw new CompleteAsyncError();
    },

    /**
     * The run recorded, its queue told, then the run ended if that is quick. The report is an argument
     * of its own: a top-level Uint8Array is a binary payload, not JSON.
     */
    finishTestRun: (run: RunCommandInput, packed: Uint8Array, queueWorkflowId: string) =>
      whileHeartbeating(async (): Promise<{ result: RunCommandResult; ended: boolean }> => {
        const result = await record(run, packed);
        await deps.tellQueue(queueWorkflowId, { runId: run.runId, result });
        return { result, ended: await endWithin(run.runId, END_INLINE_MS) };
      }, 5_000),
  };

  async function end(runId: string): Promise<void> {
    const [next] = await Promise.all([
      deps.slots.release(runId),
      deps.contents.drop(runId),
      // An executor still holding the run hears "stop" at its next heartbeat.
      deps.jobs.dropRun(runId),
    ]);
    // The organisation's oldest waiting run takes the freed slot now rather than at its next ask.
    if (!next || !deps.wake) return;
    try {
      await deps.wake(next);
    } catch (err) {
      Context.current().log.warn('a run waiting for a slot was not woken; it asks again within 30 s', {
        workflowId: next,
        problem: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** True when the run ended within `ms`; false (logged) leaves it to the workflow's endTestRun. */
  async function endWithin(runId: string, ms: number): Promise<boolean> {
    const log = Context.current().log;
    const notYet = (problem: string) => {
      log.warn('the run is recorded but not ended yet; the workflow ends it', { runId, problem });
      return false;
    };
    // An end that loses the race may still finish later: ending is idempotent.
    const ending = end(runId).then(
      () => true,
      (err: unknown) => notYet(err instanceof Error ? err.message : String(err)),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(notYet(`not ended within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([ending, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function prepare(input: RunCommandInput): Promise<PreparedTestRun> {
    try {
      return await prepareRun(deps, input);
    } catch (err) {
      if (err instanceof RunContentTooLarge)
        throw ApplicationFailure.nonRetryable(err.message, 'RunContentTooLarge');
      throw err;
    }
  }

  async function record(run: RunCommandInput, packed: Uint8Array): Promise<RunCommandResult> {
    const ctx = Context.current();
    return recordRun(deps, run, unpackRunReport(packed), (problem) => {
      ctx.log.warn('the run log was not stored; the record will have no log link', {
        runId: run.runId,
        problem,
      });
    });
  }
}
