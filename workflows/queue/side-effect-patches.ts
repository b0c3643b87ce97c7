/**
 * The `patched()` markers of the queue's side effects (side-effects.ts): each names a change to what
 * the queue's side effects do, so runs that began before it replay the branch they took live. Here,
 * one place, so the workflow's loop (queue-workflow.ts) and the side effects read the same marker.
 */

/**
 * Every call is a regular activity (stop 43). Local calls are kept only for the histories of runs that
 * began before it (their replay takes the branch they took live). Why: a local call's resolution is
 * not an event of its own, and on replay Temporal's core may hand it to the workflow in another
 * activation than it had live; the pump that follows a call then reads another workflow time and sends
 * the next call before a decision's activity instead of after it. A 20-minute `bench:continuous` run
 * recorded such a history with no worker killed and no task heartbeat: "Activity id of scheduled event
 * '354' does not match activity id of activity command '355'" on every replay, so the queue wedged at
 * its first continue-as-new attempt (an UnhandledCommand failure evicts the run and replays it).
 */
export const REGULAR_SIDE_EFFECTS_PATCH = 'side-effects-regular-activity';

/**
 * The effects due when the queue starts a read, a build or a landing ride along with that activity
 * (ADR 0028) instead of going in a `performSideEffects` call of their own: one activity and, mostly,
 * one workflow task fewer per decision that starts git work. Runs that began before it start their git
 * work at once and send every effect by itself, as they did live.
 */
export const RIDE_ALONG_PATCH = 'side-effects-ride-along';

/**
 * A call's end, a backoff's timer and the effects a result adds ask the loop for a turn, and the turn
 * pumps after its drain (`pumpInTurn`), instead of pumping from the microtask that follows them. Why:
 * Temporal's core may hand the workflow, on replay, the events of two tasks in one activation where
 * the live worker had two (a task that timed out after the worker processed it, docs/known-issues.md).
 * Pumped from a microtask, a call's result started the next call before the loop's drain had turned the
 * other task's result into effects, so the replayed call held fewer effects than the live one and the
 * replay diverged. Pumped from the turn, what a call holds is what every result before it produced,
 * however the results were split into activations (test/integration/replay/timed-out-tasks.test.ts),
 * and each turn starts once every result of its activation has settled (turn-barrier.ts). The same
 * effects may still come in another order within a call (a result's own effects before the turn's), so
 * a call's keys are numbered by occurrence, not by position (side-effect-calls.ts `occurrenceKeys`).
 * Runs that began before it pump, turn and number as they did live.
 */
export const PUMP_IN_TURN_PATCH = 'side-effects-pump-in-turn';

/**
 * The notices that a landing's PRs passed wait for the landing's result and go with their `merged`
 * notices (passed-with-landing.ts) instead of riding along with the land activity. Runs that began
 * before it let them ride, as they did live: their calls' results name those notices done with the
 * landing, and the call after it would otherwise send them again.
 */
export const PASSED_WITH_LANDING_PATCH = 'side-effects-passed-with-landing';

/**
 * A build takes its own run's moves to `testing` (`Claim`), which it holds and delivers with the commit
 * it built (held-testing-notices.ts), instead of leaving them to whatever call the effects go in. When
 * several git activities start from one pump with no call in flight, the first takes the effects due
 * and the append as before and each later build what it claims; while a call is in flight, every build
 * claims what it can (not a submission that call holds). A claimed ride is not the call in flight: the
 * next pump does not wait for it, only its submissions' later effects do. Before it, a build's PRs got
 * their commit in a details refresh afterwards whenever the build did not carry their notices itself (a
 * side effect, a signal and a workflow task in each PR's record). Order: a build's notices go after its
 * build; the append of their transitions goes first in the same ride when it is the first of its pump,
 * else with the call in flight's successor, so a PR may show `testing` before the event log holds it
 * (by the call's remainder, at most a git attempt; as after a failed append, the log's order and its
 * idempotent fold are unchanged). Runs that began before it send everything with the first ride, as
 * they did live.
 */
export const SPLIT_RIDES_PATCH = 'side-effects-split-rides';
