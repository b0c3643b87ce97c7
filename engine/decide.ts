/**
 * The reducer: `decide(state, event, ctx) -> { state, commands }`.
 *
 * Rule: an event is applied by the module that owns its concept, then the queue is *settled*: the
 * same steps run in a fixed order until a pass changes nothing:
 *   finish a mode switch -> admit -> expire runs -> invalidate stale trees -> advance bisections
 *   (beside the line) -> start a merge -> start runs -> blame pending failures.
 * The mode switch comes first so that admission and invalidation judge every tree by the mode the
 * merge step will act under.
 * Each step is idempotent on a settled queue, so the result does not depend on which event
 * triggered it, and the state after any event is a fixed point of the rules (the property tests
 * check the invariants of DESIGN §4 on exactly these fixed points).
 * Invariants: pure (no clock, no randomness, no I/O; `ctx.now` is the time, `ctx.newId` the only
 * source of ids); the input state is never mutated; the commands are in the order they must run; a
 * wake-up is asked for whenever something becomes due later (a run's deadline, a batch's wait).
 */
import { admit, onImpactedTargetsSet, onNotReady, onReady, onSubmitted } from './admission';
import { assertNever } from './assert-never';
import { advanceBisections } from './bisection';
import { onCancelled } from './cancellation';
import { type EngineCommand } from './commands';
import { type Draft, type EngineContext, openDraft } from './draft';
import { type EngineEvent } from './events';
import { invalidateStaleGroups } from './invalidation';
import { onMergeDone, onMergeFailed } from './merging';
import { type QueueState } from './model';
import { startNextMerge } from './optimistic-merge';
import { resolvePendingFailures } from './pending-failure';
import { onPriorityChanged } from './priorities';
import { completeModeSwitch, onConfigUpdated } from './queue-state';
import { onRestarted } from './restart';
import { startRuns } from './scheduling';
import { onMergedOutsideQueue, onTargetBranchMoved } from './target-branch';
import { expireRuns, onTestRunFailedToStart, onTestRunFinished, onTestRunStarted } from './test-runs';

export interface Decision {
  state: QueueState;
  commands: EngineCommand[];
}

/** A settle that needs more passes than this has a rule that undoes another: fail loudly. */
const MAX_SETTLE_PASSES = 10_000;

export function decide(state: QueueState, event: EngineEvent, ctx: EngineContext): Decision {
  const d = openDraft(state, ctx);
  apply(d, event);
  settle(d);
  return { state: d.state, commands: d.commands };
}

function apply(d: Draft, event: EngineEvent): void {
  switch (event.type) {
    case 'submitted':
      return onSubmitted(d, event);
    case 'ready':
      return onReady(d, event);
    case 'notReady':
      return onNotReady(d, event);
    case 'cancelled':
      return onCancelled(d, event);
    case 'restarted':
      return onRestarted(d, event);
    case 'priorityChanged':
      return onPriorityChanged(d, event.pr, event.priority, event.noBatch);
    case 'impactedTargetsSet':
      return onImpactedTargetsSet(d, event);
    case 'configUpdated':
      return onConfigUpdated(d, event);
    case 'testRunStarted':
      return onTestRunStarted(d, event);
    case 'testRunFailedToStart':
      return onTestRunFailedToStart(d, event);
    case 'testRunFinished':
      return onTestRunFinished(d, event);
    case 'mergeDone':
      return onMergeDone(d, event);
    case 'mergeFailed':
      return onMergeFailed(d, event);
    case 'targetBranchMoved':
      return onTargetBranchMoved(d, event.sha);
    case 'mergedOutsideQueue':
      return onMergedOutsideQueue(d, event.pr);
    case 'tick':
      return;
    default:
      return assertNever(event);
  }
}

function settle(d: Draft): void {
  for (let pass = 0; ; pass += 1) {
    if (pass >= MAX_SETTLE_PASSES) throw new Error('merge-queue engine did not settle');
    d.dirty = false;
    d.wakes.length = 0;
    completeModeSwitch(d);
    admit(d);
    expireRuns(d);
    invalidateStaleGroups(d);
    advanceBisections(d);
    startNextMerge(d);
    startRuns(d);
    resolvePendingFailures(d);
    if (!d.dirty) break;
  }
  scheduleWake(d);
}

/** The state's `wakeAt`: when the caller must send a `tick` next (null: nothing is due later). */
function scheduleWake(d: Draft): void {
  const due = [
    ...d.wakes,
    ...d.state.groups.flatMap((g) => (g.status === 'testing' && g.deadline !== null ? [g.deadline] : [])),
  ];
  d.state.wakeAt = due.length > 0 ? Math.min(...due) : null;
}
