/**
 * S2 (stable-set failure rate → flaky) and S4 (high stable-set failure rate → broken): both are
 * rates over a window with a minimum sample and hysteresis, so they share one step function.
 *
 * Hysteresis: the signal turns on at rate ≥ on and, once on, turns off only at rate < off. Below
 * the minimum sample the reading is not trusted either way and the previous value is kept — so a
 * test that stops running on main keeps its status until it runs again or goes stale.
 *
 * S4 also refuses to turn on while the window holds same-commit disagreement (S1 evidence): a test
 * that passes and fails on the same code is flaky, however often it fails.
 */
import { type RateReading } from './window';

export interface Threshold {
  readonly minAttempts: number;
  readonly on: number;
  readonly off: number;
}

export function rateStep(
  active: boolean,
  reading: RateReading,
  threshold: Threshold,
  mayActivate = true,
): boolean {
  if (reading.attempts < threshold.minAttempts) return active;
  if (active) return reading.rate >= threshold.off;
  return mayActivate && reading.rate >= threshold.on;
}
