/**
 * queueWorkflow: one per (organisation, repository, target branch). An entity workflow: handlers record
 * what arrived and start nothing (handlers.ts, received.ts); the loop below is the one place that acts
 * on it: it takes it and feeds events to the engine (runtime.ts), and sleeps until the next
 * event, the engine's next tick, the next not-ready recheck (not-ready-recheck.ts) or the end of a run's grace for its checks to start (stall-watch.ts). It continues as new past QUEUE_CONTINUE_AS_NEW_AFTER_EVENTS (contract: why) or when Temporal suggests it
 * sooner, carrying its state (carry-codec.ts): first it stops taking changes and reading hints, so the work in
 * flight ends however busy the queue is (closeForContinueAsNew); test runs are separate workflows, so
 * they survive that. It ends when the queue is deleted (only when empty).
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import { QUEUE_CONTINUE_AS_NEW_AFTER_EVENTS, repositoryLabel, type QueueWorkflowInput } from '../../contract';
import { initialCarried, type Carried } from './carried';
import { decodeCarried, type EncodedCarried } from './carry-codec';
import { registerHandlers } from './handlers';
import { NotReadyRecheck } from './not-ready-recheck';
import { fitCarried, TITLES_BUDGET_BYTES } from './payload-fit';
import { QueueRuntime } from './runtime';
import { PUMP_IN_TURN_PATCH } from './side-effect-patches';
import { StallWatch } from './stall-watch';
import { resultsSettled } from './turn-barrier';
import { WakeTimer } from './wake-timer';

/** Runs that began before it continue as new only at the server's suggestion (or the test hook). */
export const CONTINUE_AS_NEW_THRESHOLD_PATCH = 'continue-as-new-after-2000-events';

function shouldContinueAsNew(input: QueueWorkflowInput): boolean {
  const info = workflowInfo();
  if (info.continueAsNewSuggested) return true;
  const threshold =
    input.continueAsNewAfterEvents ??
    (patched(CONTINUE_AS_NEW_THRESHOLD_PATCH) ? QUEUE_CONTINUE_AS_NEW_AFTER_EVENTS : undefined);
  return threshold !== undefined && info.historyLength > threshold;
}

/** The state for continue-as-new, its titles cut if that is what it takes to fit the payload limit. */
function fitted(c: Carried): EncodedCarried | Carried {
  const fit = fitCarried(c);
  if (fit.cutTo !== null)
    log.error('PR titles over their budget at continue-as-new: every title cut', {
      cutTo: fit.cutTo,
      titleBytes: fit.titleBytes,
      budget: TITLES_BUDGET_BYTES,
      carriedBytes: fit.bytes,
    });
  return fit.carried;
}

function batchingWords(cfg: Carried['engine']['config']): string {
  if (!cfg.batch) return '';
  return cfg.batchingMode === 'adaptive'
    ? ` · adaptive batches of up to ${cfg.batchingMinSize}`
    : ` · batches of ${cfg.batchingMinSize}`;
}

function describe(c: Carried, input: QueueWorkflowInput): string {
  const cfg = c.engine.config;
  const lines = c.engine.entries.map((e) => `- #${e.pr} ${e.state}${e.priority === 0 ? ' (urgent)' : ''}`);
  return [
    `**${repositoryLabel(input.key.repo)}** → \`${input.key.targetBranch}\``,
    `${c.engine.status} · ${cfg.mode} · concurrency ${cfg.concurrency}${batchingWords(cfg)}`,
    `${c.engine.entries.length} in queue`,
    ...lines.slice(0, 20),
  ].join('\n');
}

export async function queueWorkflow(input: QueueWorkflowInput): Promise<void> {
  const carried = input.carried as EncodedCarried | Carried | undefined;
  const c: Carried = (carried && decodeCarried(carried)) ?? initialCarried(input.config, input.runner);
  const rt = new QueueRuntime(input.key, c, { appendMaximumIntervalMs: input.appendMaximumIntervalMs });
  // Each turn first lets every result of its activation settle (turn-barrier.ts); older runs did not.
  const settleFirst = patched(PUMP_IN_TURN_PATCH);
  const recheck = new NotReadyRecheck(rt);
  const stalls = new StallWatch(rt, (run) => rt.hosts.readChecks(run));
  registerHandlers(rt);
  // Hints the previous run held while it continued as new: read in the loop's first turn.
  const held = c.heldHints ?? [];
  delete c.heldHints;
  for (const hint of held) rt.receive({ kind: 'hint', hint });
  // Submissions the previous run answered while it continued as new: read in the first turn (ADR 0027).
  rt.admissions.resumeDeferred();

  /**
   * Waits until no handler or short activity is running and nothing is left to decide. It keeps
   * draining meanwhile: handlers wait for their events to be applied, so waiting without draining
   * would deadlock.
   */
  const quiesce = async () => {
    for (;;) {
      rt.drain();
      if (!rt.hasWork && rt.inFlight === 0 && allHandlersFinished()) return;
      await condition(() => rt.hasWork || (rt.inFlight === 0 && allHandlersFinished()));
      if (settleFirst) await resultsSettled();
    }
  };

  /**
   * Before continue-as-new. Under a steady load, waiting for a quiet moment (quiesce) can wait forever:
   * each drain, update and hint starts new activities before the last ones end. So from here the queue
   * takes no change (updates are refused with `continuing`, and the queue client sends them again to the
   * next run) and holds hints for the next run (rt.closing); it decides only the events of updates it
   * took before (their handlers wait for them), and waits for the work in flight, each activity bounded
   * by its timeouts. What arrives meanwhile stays in the inbox, carried to the next run; signals are
   * still taken as they come (`intake`: statuses judged, results received, hints held).
   */
  const closeForContinueAsNew = async () => {
    rt.closing = true;
    for (;;) {
      rt.intake();
      if (!allHandlersFinished()) rt.drain();
      else rt.effects.pumpInTurn();
      if (rt.inFlight === 0 && allHandlersFinished() && !rt.hasReceived) return;
      await condition(
        () =>
          rt.hasReceived ||
          rt.effects.wantsPump ||
          (rt.hasWork && !allHandlersFinished()) ||
          (rt.inFlight === 0 && allHandlersFinished()),
      );
      if (settleFirst) await resultsSettled();
    }
  };

  /**
   * Closes, then continues as new with only what the next run needs, compressed (carry-codec.ts),
   * within the payload limit (payload-fit.ts).
   */
  const closeAndContinueAsNew = async (): Promise<never> => {
    await closeForContinueAsNew();
    return continueAsNew<typeof queueWorkflow>({ ...input, carried: fitted(c) });
  };

  // One timer for the next wake-up, kept across turns that do not move it (wake-timer.ts).
  const timer = new WakeTimer();
  let tickedFor: number | null = null;
  for (;;) {
    // The engine's wake-up time lives in its state, so it survives continue-as-new.
    const wakeAt: number | null = c.engine.wakeAt !== tickedFor ? c.engine.wakeAt : null;
    const recheckAt = recheck.nextAt();
    const stallAt = stalls.nextAt();
    const next = Math.min(wakeAt ?? Infinity, recheckAt ?? Infinity, stallAt ?? Infinity);
    timer.set(Number.isFinite(next) ? next : null);
    await condition(() => rt.hasWork || c.deleted || shouldContinueAsNew(input) || timer.due);
    // The turn acts on every result of the activation, not only those before the job that woke it.
    if (settleFirst) await resultsSettled();
    timer.consume();
    // Past the threshold the turn decides nothing more: what arrived is carried to the next run. A
    // merged activation on replay reads a later history length than the live tasks did (ADR 0029), so
    // a turn that decided first and then closed would issue commands the live run never did.
    if (settleFirst && !c.deleted && shouldContinueAsNew(input)) await closeAndContinueAsNew();
    if (wakeAt !== null && Date.now() >= wakeAt) {
      tickedFor = wakeAt;
      rt.push({ type: 'tick' });
    }
    if (recheckAt !== null && Date.now() >= recheckAt) recheck.run();
    if (stallAt !== null && Date.now() >= stallAt) stalls.run();
    rt.drain();
    setCurrentDetails(describe(c, input));
    if (c.deleted && c.engine.entries.length === 0) {
      await quiesce();
      // The last transitions must reach the event log before the workflow (and its state) ends.
      while (!rt.effects.idle) {
        await condition(() => rt.effects.idle || rt.effects.wantsPump);
        rt.effects.pumpInTurn();
      }
      return;
    }
    // Past the threshold after this turn's drain (older runs: only here, never before the drain).
    if (shouldContinueAsNew(input)) await closeAndContinueAsNew();
  }
}
