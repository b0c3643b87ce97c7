/**
 * `resultsSettled()`: resolves once every job of the current activation has been applied and the
 * microtasks they started have run, so a turn of the loop that awaits it sees every result of the
 * activation, whichever job woke it (PUMP_IN_TURN_PATCH, side-effect-patches.ts, says why that matters).
 *
 * Why a condition that is false once: `condition()` evaluates its function at once, then only where
 * the SDK unblocks conditions, which is after the activation's microtasks have run. The first
 * evaluation is the eager one, inside the microtask that registers it, so the second is the first pass
 * after the microtasks: deterministic, and no command, so nothing in the history.
 */
import { condition } from '@temporalio/workflow';

export function resultsSettled(): Promise<void> {
  let eager = true;
  return condition(() => {
    if (!eager) return true;
    eager = false;
    return false;
  });
}
