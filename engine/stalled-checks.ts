/**
 * Stalled checks (issue 28, "no silent stall"): after a test branch is pushed to a host whose CI
 * reports checks (GitHub), a required check that has not *started* within the queue's grace is
 * stalled. A check has started once the host holds any check run or commit status of its name for the
 * branch's commit, whatever its state (queued, in progress, pending, or already finished).
 *
 * Rules:
 * - A grace of 0 (or less) turns the rule off, as does a run without required checks: `off`.
 * - Every required check has started: `started` (whether it passes is the verdict's business,
 *   workflows/queue/status-verdict.ts).
 * - Before `pushedAt + grace`: `waiting`, to be decided again at that time (one timer, no polling).
 * - From then on, each required check without a report is stalled, in the order the queue requires
 *   them. The likely cause: nothing at all reported on the commit (`nothing_reported`: no CI workflow
 *   runs on the test-branch prefix) or other checks did (`not_produced`: CI runs on the branch, but the
 *   required check is one it does not produce there, e.g. a job that runs only on pull requests or a
 *   check named differently).
 * Stalled is a report, never a verdict: the queue's testingTimeoutMinutes still ends the run, and a
 * check that starts later clears it.
 * Invariant: pure (no clock: `now` is given), and the same input always gives the same answer.
 */

/** The grace when a queue never set one; the API accepts 0 (off) to MAX_STALL_GRACE_MINUTES. */
export const DEFAULT_STALL_GRACE_MINUTES = 5;
export const MAX_STALL_GRACE_MINUTES = 1_440;

export type StallCause = 'nothing_reported' | 'not_produced';

export type CheckStall =
  | { kind: 'off' }
  | { kind: 'started' }
  | { kind: 'waiting'; decideAt: number }
  | { kind: 'stalled'; checks: string[]; cause: StallCause; since: number };

export interface CheckStallInput {
  /** The checks the run must pass. */
  required: readonly string[];
  /** The check names the host holds any report for on the tested commit (required or not). */
  reported: readonly string[];
  /** When the test branch was pushed (epoch ms). */
  pushedAt: number;
  now: number;
  graceMinutes: number;
}

export function checkStall(input: CheckStallInput): CheckStall {
  const required = [...new Set(input.required)];
  if (!(input.graceMinutes > 0) || required.length === 0) return { kind: 'off' };
  const reported = new Set(input.reported);
  const missing = required.filter((name) => !reported.has(name));
  if (missing.length === 0) return { kind: 'started' };
  const decideAt = input.pushedAt + input.graceMinutes * 60_000;
  if (input.now < decideAt) return { kind: 'waiting', decideAt };
  return {
    kind: 'stalled',
    checks: missing,
    cause: reported.size === 0 ? 'nothing_reported' : 'not_produced',
    since: decideAt,
  };
}
