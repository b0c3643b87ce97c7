/**
 * The preflight's verdict (issue 28, "no silent stall"): before a queue is enabled or resumed, a
 * throw-away test branch is pushed and railyard waits, up to a bound, for the queue's required checks
 * to *start* on it. This decides, from what the host holds for the branch's commit, whether to answer
 * now or wait on.
 *
 * Rules (the stall rule of stalled-checks.ts, with the wait's end in place of the grace):
 * - No required check: `nothing_required` (nothing to wait for; the caller says why).
 * - Every required check has a report of any state (queued, in progress, pending, finished):
 *   `started`, at once, without waiting for the bound.
 * - Before the deadline, some missing: `waiting`.
 * - At or after it: `missing`, naming the required checks without a report, in the queue's order, and
 *   the likely cause: nothing at all reported on the commit (`nothing_reported`: no CI workflow runs on
 *   the test-branch prefix) or other checks did (`not_produced`: CI runs on the branch but does not
 *   produce that check there, e.g. a job only on pull requests, or a check named differently).
 * Invariant: pure (no clock: `now` is given); `started` ∪ `missing` is the required set, disjoint.
 */
import type { StallCause } from './stalled-checks';

export type PreflightChecks =
  | { kind: 'nothing_required' }
  | { kind: 'started'; started: string[] }
  | { kind: 'waiting'; started: string[]; missing: string[] }
  | { kind: 'missing'; started: string[]; missing: string[]; cause: StallCause };

export interface PreflightChecksInput {
  required: readonly string[];
  /** Every check name the host holds a report of for the branch's commit (required or not). */
  reported: readonly string[];
  now: number;
  /** When the preflight stops waiting (epoch ms). */
  deadline: number;
}

export function judgePreflightChecks(input: PreflightChecksInput): PreflightChecks {
  const required = [...new Set(input.required)];
  if (required.length === 0) return { kind: 'nothing_required' };
  const reported = new Set(input.reported);
  const started = required.filter((name) => reported.has(name));
  const missing = required.filter((name) => !reported.has(name));
  if (missing.length === 0) return { kind: 'started', started };
  if (input.now < input.deadline) return { kind: 'waiting', started, missing };
  return {
    kind: 'missing',
    started,
    missing,
    cause: reported.size === 0 ? 'nothing_reported' : 'not_produced',
  };
}
