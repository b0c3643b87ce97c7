/**
 * A command run's result, as the queue takes it (testRunFinishedSignal, from the run's finishTestRun or
 * its workflow): the run's status and detail for its PRs' records, and the engine's event.
 *
 * The run's workflow is started by the activity that builds its branch (command-executor.ts), so its
 * result can arrive before the queue has taken that activity's completion (a slow queue, or a build
 * retried after its worker died): the run is still `building` then. Such a result is held in the run
 * (`early`) and taken once the build's completion has reported the run started, so the engine hears
 * `testRunStarted` before `testRunFinished`, as it always did.
 *
 * Invariants: only the first result of a run is taken (a retried finishTestRun may tell the queue
 * twice); a result for a run that is neither building nor in progress changes nothing; a `cancelled`
 * result changes nothing (the queue cancelled the run itself).
 */
import { MAX_DETAIL_TEXT, type TestRunFinishedNotice } from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import { notePassedOnTarget } from './passed-on-target';
import { commandFailure } from './reason-details';

/** What a run's signal carries. */
export type RunResult = TestRunFinishedNotice['result'];

/** The signal's side: takes the result now, holds it while the run builds, or ignores it. */
export function receiveRunResult(ctx: QueueContext, run: RunMeta, result: RunResult): void {
  if (result.kind === 'cancelled') return;
  if (run.status === 'building') {
    run.early ??= result;
    return;
  }
  if (run.status === 'in_progress') takeRunResult(ctx, run, result);
}

/** The build's side, once the run is in progress: takes a result that came while it was building. */
export function takeEarlyRunResult(ctx: QueueContext, run: RunMeta): void {
  const early = run.early;
  if (!early) return;
  delete run.early;
  if (run.status === 'in_progress') takeRunResult(ctx, run, early);
}

function takeRunResult(ctx: QueueContext, run: RunMeta, result: RunResult): void {
  const { runId } = run;
  switch (result.kind) {
    case 'finished':
      run.status = result.outcome === 'passed' ? 'succeeded' : 'failed';
      if (result.outcome === 'failed') {
        run.detail = commandFailure(result);
        notePassedOnTarget(run, result.tests);
      }
      ctx.push({
        type: 'testRunFinished',
        runId,
        outcome: result.outcome,
        tests: result.tests,
        judge: 'command',
      });
      return;
    case 'config_problem':
      run.status = 'failed';
      run.detail = { kind: 'problem', text: result.detail.slice(0, MAX_DETAIL_TEXT) };
      ctx.push({ type: 'testRunFailedToStart', runId, reason: result.reason, culpritPr: null });
      return;
    case 'error':
      // The activity's error stays in the worker's log: it may name internals the record must not show.
      run.status = 'failed';
      ctx.push({
        type: 'testRunFailedToStart',
        runId,
        reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
        culpritPr: null,
      });
      return;
    case 'cancelled':
      return;
  }
}
