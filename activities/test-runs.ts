/**
 * The test-run activities on the control task queue (issue 17): adapters over the test-runs/ room, so
 * that the executor — which runs pull requests' code — needs neither the git root, the mirrors nor the
 * database. What they do, and its rules, is in the room:
 *
 *  - takeRunSlot / endTestRun: the organisation's share of executor slots (store/run-slots.ts), and the
 *    end of the run's content token (store/run-content.ts); the oldest waiting run is woken at once;
 *  - prepareTestRun: test-runs/prepare.ts (the command from the tested commit, the commit staged as a
 *    git bundle); a bundle over the limit fails without retry (RunContentTooLarge);
 *  - executeTestRun: handed to an executor (issue 24, ADR 0014). The attempt is stored as a job with
 *    its task token (store/executor-jobs.ts) and the activity completes asynchronously: the API
 *    heartbeats, completes or fails it when the executor that claimed the job heartbeats or reports
 *    (test-runs/executor-dispatch.ts). Nothing of the run lives in the worker, so a worker that dies
 *    mid-run loses nothing; the activity's timeouts and retries are the workflow's, as before;
 *  - recordTestRun: test-runs/record.ts (the log kept within a time limit, the JUnit judged by
 *    test-runs/judge.ts's rules: unreadable or missing reports are failures no quarantine forgives).
 *
 * Here is only what is Temporal's: heartbeats while a step runs, the activity logger, and the failure
 * types a workflow sees.
 */
import { ApplicationFailure, CompleteAsyncError, Context } from '@temporalio/activity';
import type { RunCommandInput } from './merge-queue/types';
import type { RunCommandResult } from '../contract';
import { RunContentTooLarge } from '../test-runs/store/run-content';
import { unpackRunReport } from '../executor/run-report';
import type { RunSlots } from '../test-runs/store/run-slots';
import type { ExecutorJobs, JobInput } from '../test-runs/store/executor-jobs';
import { type PrepareDeps, type PreparedTestRun, prepareRun } from '../test-runs/prepare';
import { type RecordDeps, recordRun } from '../test-runs/record';
import { whileHeartbeating } from './heartbeat';

export interface TestRunControlDeps extends PrepareDeps, RecordDeps {
  slots: RunSlots;
  /** Test runs waiting for, or held by, executors. */
  jobs: ExecutorJobs;
  /** Wakes a test-run workflow waiting for a slot (runSlotFreedSignal); absent: waiters ask every 30 s. */
  wake?: (workflowId: string) => Promise<void>;
}

export function createTestRunControlActivities(deps: TestRunControlDeps) {
  return {
    async takeRunSlot(input: {
      organisationId: string;
      runId: string;
      workflowId: string;
      leaseMs: number;
    }): Promise<boolean> {
      return deps.slots.take(input);
    },

    async endTestRun(input: { runId: string }): Promise<void> {
      const [next] = await Promise.all([
        deps.slots.release(input.runId),
        deps.contents.drop(input.runId),
        // An executor still holding the run hears "stop" at its next heartbeat.
        deps.jobs.dropRun(input.runId),
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
    },

    // Heartbeating every 5 s: a worker that dies mid-step is noticed in seconds.
    prepareTestRun: (input: RunCommandInput) => whileHeartbeating(() => prepare(input), 5_000),

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

    /** The report is an argument of its own: a top-level Uint8Array is a binary payload, not JSON. */
    recordTestRun: (run: RunCommandInput, packed: Uint8Array) =>
      whileHeartbeating(() => record(run, packed), 5_000),
  };

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
