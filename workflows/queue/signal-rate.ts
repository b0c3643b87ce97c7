/**
 * SignalRate: how many signals (host hints, CI statuses, test-run results) reached the queue in the
 * last WINDOW_MS of workflow time. The side effects run as a local activity only while that is low
 * (side-effects.ts): a local activity keeps its workflow task open, the signals that arrive meanwhile
 * are buffered by Temporal, and past its buffered-events limit (100 by default) Temporal fails the task
 * to flush them, which throws the local activity's work away. Under a storm of signals that would
 * repeat forever; so in a storm the side effects go as a regular activity, which holds no task open.
 *
 * Invariants: deterministic (workflow time, signals in history order); bounded memory (one count per
 * window, two windows).
 */
const WINDOW_MS = 2_000;
/** Signals per window past which a workflow task should not be held open. */
const STORM = 20;

export class SignalRate {
  private windowStart = 0;
  private current = 0;
  private previous = 0;

  /** A signal arrived now. */
  note(): void {
    this.roll();
    this.current += 1;
  }

  /** Few signals arrive: a workflow task held open for a local activity buffers few of them. */
  get quiet(): boolean {
    this.roll();
    return this.current + this.previous < STORM;
  }

  private roll(): void {
    const now = Date.now();
    if (now - this.windowStart < WINDOW_MS) return;
    // The window just ended becomes the previous one; an older one counts for nothing.
    this.previous = now - this.windowStart < 2 * WINDOW_MS ? this.current : 0;
    this.current = 0;
    this.windowStart = now;
  }
}
