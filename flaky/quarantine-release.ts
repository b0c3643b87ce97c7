/**
 * Automatic release from quarantine (docs/flaky-tests.md §5 "Quarantine lifecycle"): a test
 * quarantined by rule (AUTO_QUARANTINE: not by a still-valid override) is released once it has had
 * the repository's `releaseAfterCleanRuns` consecutive clean runs, and a failing run ends the
 * release (the rule then quarantines it again while it is unhealthy).
 *
 * A run is the test's results in one upload: `failed` when any attempt failed (a pass on retry
 * included: that is a flake), `clean` when an attempt passed and none failed, `skipped` otherwise.
 * Runs of uploads excluded as infrastructure failures (D4) are not seen, as by every other rule.
 * The count is of consecutive clean runs since the test's last failing run; skipped runs neither
 * count nor break it. Pure: the fold (store/quarantine-lifecycle.ts) supplies the runs in upload order.
 */
import { QuarantineInputError } from './quarantine';

export const RELEASE_AFTER_CLEAN_RUNS = { default: 20, min: 1, max: 1000 } as const;

export type RunOutcome = 'clean' | 'failed' | 'skipped';

export function runOutcomeOf(run: { readonly failed: boolean; readonly passed: boolean }): RunOutcome {
  if (run.failed) return 'failed';
  return run.passed ? 'clean' : 'skipped';
}

/** The consecutive clean runs after `runs` (in order), starting from `previous`. */
export function countCleanRuns(previous: number, runs: readonly RunOutcome[]): number {
  let count = previous;
  for (const run of runs) {
    switch (run) {
      case 'failed':
        count = 0;
        break;
      case 'clean':
        count += 1;
        break;
      case 'skipped':
        break;
    }
  }
  return count;
}

export interface ReleaseInput {
  /** Quarantined by rule now, ignoring any release (quarantineOf with released = false says AUTO). */
  readonly quarantinedByRule: boolean;
  readonly released: boolean;
  /** A failing run among the new runs. */
  readonly failed: boolean;
  /** Consecutive clean runs after the new runs (countCleanRuns). */
  readonly cleanRuns: number;
  readonly releaseAfterCleanRuns: number;
}

/**
 * What the new runs do to a test's release: `ends` the current release (a failing run), `releases`
 * it (quarantined by rule and enough clean runs since the last failure; both when a failure was
 * followed by enough clean runs in the same batch).
 */
export function releaseStep(input: ReleaseInput): { readonly ends: boolean; readonly releases: boolean } {
  const ends = input.released && input.failed;
  const stillReleased = input.released && !ends;
  const releases =
    !stillReleased && input.quarantinedByRule && input.cleanRuns >= input.releaseAfterCleanRuns;
  return { ends, releases };
}

/** Clean runs still needed before a test quarantined by rule is released (0: at the next fold). */
export function cleanRunsToRelease(cleanRuns: number, releaseAfterCleanRuns: number): number {
  return Math.max(0, releaseAfterCleanRuns - cleanRuns);
}

/** Throws QuarantineInputError unless `value` is a whole number within RELEASE_AFTER_CLEAN_RUNS. */
export function checkReleaseAfterCleanRuns(value: number): number {
  const { min, max } = RELEASE_AFTER_CLEAN_RUNS;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new QuarantineInputError(
      `Field 'quarantine.release_after_clean_runs' must be a whole number from ${min} to ${max}.`,
    );
  return value;
}
