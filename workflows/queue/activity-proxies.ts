/**
 * Activity stubs for the queue workflow: its git work, with short timeouts (seconds), and the calls
 * of its side effects (side-effects.ts), whose effects may also ride along with the git work (ADR 0028).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { INITIAL_INTERVAL_MS } from './side-effect-calls';

export const git = proxyActivities<Activities>({
  // Git work takes milliseconds to seconds; a short bound retries quickly after a worker dies mid-call.
  startToCloseTimeout: '30 seconds',
  // The git activities heartbeat every second while they run (activities/merge-queue/git-activities.ts):
  // a call on a worker that died is retried after this, not after the whole 30 s.
  heartbeatTimeout: '10 seconds',
  // Bounded: past this the run fails to start or the merge fails, with a reason, instead of hanging.
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 12,
  },
});

/**
 * The longest a local call may run, retries included: far below the 8 s (80 % of the default 10 s
 * workflow task timeout) at which the worker would heartbeat the task, leaving the activation that
 * scheduled it seconds to spare under load. Local calls are made only by runs that began before
 * REGULAR_SIDE_EFFECTS_PATCH (side-effects.ts).
 *
 * Why: a local activity still running at 80 % of the task's timeout makes the worker "heartbeat" the task
 * (complete it empty and take a new one), and on replay Temporal's core gives the activations after
 * such a heartbeat another workflow time than they had live (issue 27: `Date.now()` in the task that
 * took a signal after the heartbeat was the heartbeat task's on replay, 1.6 s instead of 3.2 s). The
 * queue decides on that time (the signal rate, the effects' backoffs, the engine's ticks), so such a
 * history did not replay ("Activity id of scheduled event '10' does not match activity id of activity
 * command '11'" after a worker kill). A call that hits the bound fails like any other (its effects are
 * tried again; each is idempotent) and the next call goes as a regular activity.
 */
export const LOCAL_CALL_BOUND_MS = 3_000;
/** The side effects' stubs; `appendMaximumIntervalMs` bounds the pause between append attempts. */
export function sideEffectProxies(appendMaximumIntervalMs: number) {
  // A local activity: it runs on this worker inside the workflow task of the decision that produced
  // the effects, and costs the history one marker event instead of three activity events and the
  // workflow task that takes its result (issue 25). Its work is short (signals, one append, branch
  // deletions) and each effect is idempotent, so a call on a worker that died is simply made again
  // whole when the workflow task is retried elsewhere; it needs no heartbeat. The task stays open
  // while it runs: updates and queries wait that long, at most LOCAL_CALL_BOUND_MS (never a heartbeat).
  // One call at a time (`calling`), and the queue starts no other local activity: local activities in
  // flight together resolve on replay in scheduling order, not in the order they finished, and what
  // the workflow did after each would then differ (admission.ts).
  const performLocal = proxyLocalActivities<Activities>({
    // Retries included, never near the task's heartbeat (LOCAL_CALL_BOUND_MS says why).
    scheduleToCloseTimeout: LOCAL_CALL_BOUND_MS,
    startToCloseTimeout: LOCAL_CALL_BOUND_MS,
    // Failed effects are reported, not thrown: only a call that threw is retried here.
    retry: { initialInterval: '500 milliseconds', maximumInterval: '1 second', maximumAttempts: 3 },
  }).performSideEffects;
  // In a storm of signals, a regular activity: it holds no workflow task open (signal-rate.ts).
  const perform = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    // It heartbeats every second with the keys done: a call on a dead worker is retried within this.
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  }).performSideEffects;
  const appendAlone = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    // No maximumAttempts: the transitions must reach the log whatever the outage.
    retry: {
      initialInterval: INITIAL_INTERVAL_MS,
      backoffCoefficient: 2,
      // Temporal refuses a maximum below the initial interval (the workflow task would fail).
      maximumInterval: Math.max(INITIAL_INTERVAL_MS, appendMaximumIntervalMs),
    },
  }).appendTransitions;
  return { performLocal, perform, appendAlone };
}
