/**
 * The queue's settings, named exactly as Trunk's `updateQueue` fields (trunk-compat §1.8, §1.11).
 *
 * Rule: defaults are Trunk's API defaults: mode `single`, concurrency 1, no batching (target size 4,
 * 5 minutes' wait), no optimistic merge, pending-failure depth 0, direct merge `off`, optimization
 * `off`, squash merges, a 5-hour testing timeout (0 turns it off), and a bisection concurrency that
 * starts equal to the testing concurrency. One setting is the engine's own, not Trunk's:
 * `speculationThreshold` (speculation-threshold.ts). No API field sets it, so a queue keeps the
 * default it was created with. Two are railyard's extensions of Trunk's API: `batchingMode`
 * (`fixed`, Trunk's batching and the default, or `adaptive`, adaptive-batching.ts) and
 * `batchingRunsPerPrTarget`, the cost adaptive batching keeps within. `flakyRetries` (issue 28) is
 * railyard's too: how often a run that failed only in known-flaky tests is run again before its
 * failure counts (flaky-retry.ts).
 * Invariant: a config held in the state is always normalised (integers in range), whatever a patch
 * carried, so no other module has to defend against a concurrency of 0 or a negative depth.
 * The queue state (`running`, `paused`, ...) is not a setting here: it has its own transitions
 * (see queue-state.ts). Trunk's presentation settings (comments, labels, required statuses) are
 * the workflow's business; the engine does not read them.
 */

export type QueueMode = 'single' | 'parallel';
export type MergeMethod = 'merge_commit' | 'squash' | 'rebase';
export type DirectMergeMode = 'off' | 'always';
export type OptimizationMode = 'off' | 'bisection_skip_redundant_tests';
/**
 * `fixed`: Trunk's batching, batches of `batchingMinSize` stacked `concurrency` deep. `adaptive`: the
 * queue picks both from its measured failure rate and backlog, up to those settings
 * (adaptive-batching.ts).
 */
export const BATCHING_MODES = ['fixed', 'adaptive'] as const;
export type BatchingMode = (typeof BATCHING_MODES)[number];

export interface QueueConfig {
  mode: QueueMode;
  /** Main test runs in flight at once. */
  concurrency: number;
  /** Bisection runs in flight at once; these slots are separate from `concurrency`. */
  bisectionConcurrency: number;
  batch: boolean;
  /** Trunk's "target batch size": a batch starts once it has this many PRs, or after the wait below. */
  batchingMinSize: number;
  batchingMaxWaitTimeMinutes: number;
  optimizationMode: OptimizationMode;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  directMergeMode: DirectMergeMode;
  /** 0 means no timeout. */
  testingTimeoutMinutes: number;
  mergeMethod: MergeMethod;
  /**
   * Engine-internal. With batching, the least chance (0..1) that the untested PRs under a new batch
   * all pass for the batch to be stacked on them; 0 = no threshold (Trunk's behaviour).
   */
  speculationThreshold: number;
  /**
   * railyard's extension; absent reads as `fixed` (DEFAULT_BATCHING_MODE), so a queue that never set
   * it keeps exactly the state (and bytes) it had before the setting existed.
   */
  batchingMode?: BatchingMode;
  /**
   * Adaptive batching only: the most test runs per merged PR its plan may cost under load; absent
   * reads as DEFAULT_RUNS_PER_PR_TARGET.
   */
  batchingRunsPerPrTarget?: number;
  /**
   * railyard's extension (issue 28): how many times a run whose failed tests are all known flaky is
   * run again (its failed tests only, where the command supports it) before its failure counts;
   * 0 turns it off, at most MAX_FLAKY_RETRIES. Absent reads as DEFAULT_FLAKY_RETRIES.
   */
  flakyRetries?: number;
}

export type QueueConfigPatch = Partial<QueueConfig>;

export const DEFAULT_CONFIG: QueueConfig = {
  mode: 'single',
  concurrency: 1,
  bisectionConcurrency: 1,
  batch: false,
  batchingMinSize: 4,
  batchingMaxWaitTimeMinutes: 5,
  optimizationMode: 'off',
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  directMergeMode: 'off',
  testingTimeoutMinutes: 300,
  mergeMethod: 'squash',
  // At a failure rate of 5% this allows up to 27 undecided PRs under a batch: 3 batches of 8 (all
  // pass with 0.29) or of 4, so concurrency 4 is used in full; 3 batches of 8 are held back above a
  // rate of 5.6%, 2 above 8.3%. It was 0.38 (2 batches of 8) while a failed batch held the line
  // during its bisection; beside the line a failure costs only the runs stacked on it, and in
  // simulation 0.25 gives 95.6% of the corrected ceiling for 0.47 runs per merged PR at B=8 C=4,
  // p=5%, against 76% and 0.47 with 0.38 (bench/README.md).
  speculationThreshold: 0.25,
};

export const DEFAULT_BATCHING_MODE: BatchingMode = 'fixed';
// The cost target issue 25 sets the fixed rows (B=8 C=4 at p = 5% costs 0.47 runs per merged PR).
export const DEFAULT_RUNS_PER_PR_TARGET = 0.5;
/** Below this no plan is cheap enough; the API refuses less (the entropy floor at p = 1% is 0.08). */
export const MIN_RUNS_PER_PR_TARGET = 0.05;
export const MAX_RUNS_PER_PR_TARGET = 10;
/** One retry forgives one flake; a test that fails twice in a row on the same tree is not forgiven. */
export const DEFAULT_FLAKY_RETRIES = 1;
/** Each retry holds its PRs (and the runs on them) for another run: a small cap bounds that cost. */
export const MAX_FLAKY_RETRIES = 3;

/** The queue's flaky retries, absent read as the default. */
export const flakyRetriesOf = (config: QueueConfig): number => config.flakyRetries ?? DEFAULT_FLAKY_RETRIES;

/** A full config from Trunk's defaults; bisection concurrency follows concurrency unless given. */
export function queueConfig(overrides: QueueConfigPatch = {}): QueueConfig {
  const base: QueueConfig = {
    ...DEFAULT_CONFIG,
    bisectionConcurrency: overrides.concurrency ?? DEFAULT_CONFIG.bisectionConcurrency,
  };
  return applyConfigPatch(base, overrides);
}

/** Applies a patch; omitted (or undefined) fields keep their value, as in `updateQueue`. */
export function applyConfigPatch(config: QueueConfig, patch: QueueConfigPatch): QueueConfig {
  const merged: QueueConfig = { ...config };
  for (const key of Object.keys(patch) as (keyof QueueConfig)[]) {
    const value = patch[key];
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return normalise(merged);
}

function normalise(config: QueueConfig): QueueConfig {
  return {
    ...config,
    concurrency: clampInt(config.concurrency, 1, 10_000),
    bisectionConcurrency: clampInt(config.bisectionConcurrency, 1, 10_000),
    batchingMinSize: clampInt(config.batchingMinSize, 1, 10_000),
    batchingMaxWaitTimeMinutes: clampNumber(config.batchingMaxWaitTimeMinutes, 0, 525_600),
    pendingFailureDepth: clampInt(config.pendingFailureDepth, 0, 10_000),
    testingTimeoutMinutes: clampNumber(config.testingTimeoutMinutes, 0, 525_600),
    speculationThreshold: clampNumber(config.speculationThreshold, 0, 1),
    // Only present once set, so the state of a queue that never set them stays as it was.
    ...(config.batchingMode === undefined
      ? {}
      : { batchingMode: config.batchingMode === 'adaptive' ? 'adaptive' : 'fixed' }),
    ...(config.batchingRunsPerPrTarget === undefined
      ? {}
      : {
          batchingRunsPerPrTarget: clampNumber(
            config.batchingRunsPerPrTarget,
            MIN_RUNS_PER_PR_TARGET,
            MAX_RUNS_PER_PR_TARGET,
          ),
        }),
    ...(config.flakyRetries === undefined
      ? {}
      : { flakyRetries: clampInt(config.flakyRetries, 0, MAX_FLAKY_RETRIES) }),
  };
}

function clampInt(value: number, min: number, max: number): number {
  return Math.round(clampNumber(value, min, max));
}

function clampNumber(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, value));
}
