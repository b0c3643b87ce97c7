/**
 * WakeTimer: the queue loop's one timer, for the next time it must wake without a message (the
 * engine's tick, the not-ready recheck: queue-workflow.ts). A timer is started only when that time
 * changes and cancelled only then, so a turn of the loop that leaves the time as it was writes no
 * timer event (a timeout on the loop's wait started and cancelled one on every turn: two events of
 * the queue's history per message).
 *
 * A later time (or none) keeps the pending timer rather than cancelling it: a cancelled timer is two
 * events (started, cancelled) on every move, and the loop's wake-up time moves later on every test run
 * that ends (the next deadline). The kept timer fires early, once, and the loop, which checks the times
 * it wakes for, finds nothing due and sets the timer for the time it now has.
 *
 * Invariants: at most one timer is pending, and it fires no later than the time last set; `due` is
 * true once the pending timer fired and stays so until `consume`; a time already past is due after a
 * 1 ms timer, in a later workflow task.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';

export class WakeTimer {
  private at: number | null = null;
  private scope: CancellationScope | null = null;
  private fired = false;

  /** Whether the time set has come. */
  get due(): boolean {
    return this.fired;
  }

  /** Wake at `at` (workflow time; null: no need to wake). */
  set(at: number | null): void {
    if (at === this.at) return;
    // Kept: it fires before (or when) the new time, and an early wake-up costs less than a cancel.
    if (this.scope !== null && !this.fired && this.at !== null && (at === null || at > this.at)) return;
    this.scope?.cancel();
    this.scope = null;
    this.at = at;
    this.fired = false;
    if (at === null) return;
    // A time already past still waits for a timer (1 ms): firing at once would let a time the loop
    // cannot act on spin it inside one workflow task, where the clock stands still.
    const scope = new CancellationScope();
    this.scope = scope;
    scope
      .run(() => sleep(Math.max(1, at - Date.now())))
      .then(
        () => {
          if (this.scope === scope) this.fired = true;
        },
        (err: unknown) => {
          if (!isCancellation(err)) throw err;
        },
      );
  }

  /** The loop has acted on a due time: the next `set` starts afresh, even for the same time. */
  consume(): void {
    if (!this.fired) return;
    this.fired = false;
    this.at = null;
    this.scope = null;
  }
}
