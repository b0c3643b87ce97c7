/**
 * Adaptive batching (`batchingMode: 'adaptive'`, railyard's extension of Trunk's batching): the
 * queue picks its batch size and speculation depth itself, from its measured failure rate
 * (failure-rate.ts) and its backlog, instead of testing batches of `batchingMinSize` stacked
 * `concurrency` deep.
 *
 * Rules:
 * - The plan. For the measured rate p the queue takes the (size B, depth C), B <= `batchingMinSize`
 *   and C <= `concurrency`, with the highest modelled throughput among those whose modelled cost is
 *   at most `batchingRunsPerPrTarget` runs per merged PR; ties go to the cheaper plan (where the
 *   bisection slots cap the rate, larger batches are as fast and cost less), then to the smaller.
 *   When no plan is that cheap, the cheapest one. The model (`modelOf`) is the corrected ceiling of merge-queue-anchors.md §5.3
 *   (bisection beside the line, each good PR of a failed batch tested once more in the line),
 *   capped by what `bisectionConcurrency` slots can bisect, and its cost counts the main runs of an
 *   optimistic pipeline of depth C (cancelled ones included), the re-tests, and about
 *   culprits x ceil(log2 B) bisection runs per failed batch.
 * - The backlog. A batch takes up to B pending PRs, so a quiet queue tests what it has (one PR at
 *   a time when PRs come one at a time: the latency of B = 1) and a backlog fills batches of B. A
 *   batch smaller than B starts at once unless another batch smaller than B is already in flight;
 *   then it waits for B PRs, for that run, or for `batchingMaxWaitTimeMinutes`, whichever comes
 *   first. So the first PR of a burst is tested at once and the rest fill whole batches instead
 *   of taking every slot one PR each for a whole CI duration.
 * - The depth. At most C new main-line runs in flight (restarts in place and bisection runs keep
 *   their own limits, scheduling.ts); the speculation threshold does not apply, because the plan
 *   already priced the depth at the measured rate.
 * Why a model and not a controller that reacts to the last results: failures are mostly
 * independent, so a window that shrinks at each one reacts to chance (speculation-threshold.ts);
 * the rate is the smoothed evidence, and the model turns it into a plan the same way for every queue.
 * Invariants: pure and deterministic (sums and products of doubles and integer loops, no Math.pow or
 * Math.log, so a replay computes the same bits); 1 <= size <= max(1, batchingMinSize) and
 * 1 <= depth <= concurrency; a fixed queue never calls it (its behaviour and state are unchanged).
 */
import { DEFAULT_RUNS_PER_PR_TARGET, type QueueConfig } from './config';
import { type Draft } from './draft';
import type { QueueState } from './model';
import { failureRateOf } from './failure-rate';

export interface BatchPlan {
  /** PRs per batch when the backlog has that many. */
  size: number;
  /** New main-line runs in flight at most. */
  depth: number;
}

export interface Modelled {
  /** PRs resolved (merged or ejected) per CI duration, at saturation. */
  throughput: number;
  /** Test runs started (main, cancelled, bisection) per merged PR. */
  runsPerMergedPr: number;
}

export function isAdaptive(config: QueueConfig): boolean {
  return config.batch && config.batchingMode === 'adaptive';
}

/**
 * Plans already made, by their inputs: the rate moves only when a PR merges or is blamed, and a
 * search over up to 100 x 100 plans at every scheduling pass would cost more than the rest of a
 * decision. A pure function's memo (a hit returns exactly what the search would), at most PLANS_KEPT.
 */
const plans = new Map<string, BatchPlan>();
const PLANS_KEPT = 64;

/** The plan for the queue's current failure rate and settings. */
export function planOf(d: Draft): BatchPlan {
  return planFor(d.state);
}

/** What an adaptive queue plans now, as getQueue shows it (railyard's extension); null: a fixed queue. */
export interface CurrentPlan extends BatchPlan {
  /** The failure rate the plan was made for: the estimated chance that one PR breaks its run. */
  failureRate: number;
}

export function currentPlan(state: QueueState): CurrentPlan | null {
  if (!isAdaptive(state.config)) return null;
  return { ...planFor(state), failureRate: failureRateOf(state) };
}

function planFor(state: QueueState): BatchPlan {
  const c = state.config;
  const args = [
    failureRateOf(state),
    c.batchingMinSize,
    c.concurrency,
    c.bisectionConcurrency,
    c.batchingRunsPerPrTarget ?? DEFAULT_RUNS_PER_PR_TARGET,
  ] as const;
  const key = args.join('|');
  const known = plans.get(key);
  if (known) return known;
  const plan = adaptivePlan(...args);
  if (plans.size >= PLANS_KEPT) plans.delete(plans.keys().next().value!);
  plans.set(key, plan);
  return plan;
}

/**
 * The best plan within the cost target (see the module comment). For each size the modelled cost
 * grows with the depth, so the first depth past the target ends that size's search.
 */
export function adaptivePlan(
  rate: number,
  maxSize: number,
  maxDepth: number,
  bisectionSlots: number,
  runsPerPrTarget: number,
): BatchPlan {
  const p = Math.min(0.999, Math.max(0, rate));
  let best: { plan: BatchPlan; m: Modelled } | null = null;
  let cheapest: { plan: BatchPlan; cost: number } | null = null;
  for (let size = 1; size <= Math.max(1, maxSize); size += 1) {
    for (let depth = 1; depth <= Math.max(1, maxDepth); depth += 1) {
      const m = modelOf(size, depth, p, bisectionSlots);
      if (cheapest === null || m.runsPerMergedPr < cheapest.cost)
        cheapest = { plan: { size, depth }, cost: m.runsPerMergedPr };
      if (m.runsPerMergedPr > runsPerPrTarget) break;
      if (best === null || better(m, best.m)) best = { plan: { size, depth }, m };
    }
  }
  return (best ?? cheapest)!.plan;
}

/**
 * Faster, or as fast (within rounding) and cheaper: where the bisection slots cap the rate, larger
 * batches are as fast and cost less per PR. Equal in both: the smaller plan, found first, stays.
 */
function better(a: Modelled, b: Modelled): boolean {
  const tie = 1e-9 * Math.max(a.throughput, b.throughput);
  if (a.throughput > b.throughput + tie) return true;
  return a.throughput >= b.throughput - tie && a.runsPerMergedPr < b.runsPerMergedPr - 1e-12;
}

/**
 * Throughput and cost of batches of `size` stacked `depth` deep at failure rate `p`, per fresh
 * batch: L = 1 + kappa P_B line batches (the batch and the re-tests of the good PRs of a failed
 * one, kappa = 1 - p / P_B), each failing with P' = P_B / L; a pipeline of depth C resolves
 * (1 - (1 - P')^C) / P' line batches per CI duration (the corrected ceiling of §5.3).
 * Runs: the L line batches, RETEST_FACTOR x P_B more (re-tests that fail again with a fresh culprit),
 * CANCEL_FACTOR x (C - 1) runs per failed line batch (the head of a full pipeline fails and the
 * runs stacked on it restart without it; cleared PRs re-entering the line restart some more), and
 * culprits x ceil(log2 B) bisection runs per failed batch. The factors are fitted to the simulator
 * (bench/simulate, p = 2 to 10%, B = 4 to 16, C = 1 and 4; bench/README.md).
 */
const RETEST_FACTOR = 0.35;
const CANCEL_FACTOR = 1.3;

export function modelOf(size: number, depth: number, p: number, bisectionSlots: number): Modelled {
  const pass = power(1 - p, size);
  const pb = 1 - pass;
  if (pb <= 0) return { throughput: size * depth, runsPerMergedPr: 1 / size };
  const single = size === 1;
  const lineBatches = single ? 1 : 1 + (1 - p / pb) * pb;
  const lineFail = pb / lineBatches;
  const resolvedLine = (1 - power(1 - lineFail, depth)) / lineFail;
  const mainRuns = lineBatches * (single ? 1 : 1 + RETEST_FACTOR * pb) + pb * (depth - 1) * CANCEL_FACTOR;
  const bisectionRuns = single ? 0 : pb * culpritsGivenFailure(size, p, pb) * halvings(size);
  let throughput = (size * resolvedLine) / lineBatches;
  // Bisection slots: each failed batch occupies them for bisectionRuns / P_B CI durations.
  if (bisectionRuns > 0)
    throughput = Math.min(throughput, (Math.max(1, bisectionSlots) * size) / bisectionRuns);
  return { throughput, runsPerMergedPr: (mainRuns + bisectionRuns) / (size * (1 - p)) };
}

/** Expected culprits in a batch of `size` that failed: size p / P_B, at least 1. */
function culpritsGivenFailure(size: number, p: number, pb: number): number {
  return Math.max(1, (size * p) / pb);
}

/** ceil(log2 n): the rounds that halve a batch of n down to one PR. */
export function halvings(n: number): number {
  let rounds = 0;
  for (let width = 1; width < n; width *= 2) rounds += 1;
  return rounds;
}

/** x^n by products (no Math.pow: a replay must compute the same bits). */
function power(x: number, n: number): number {
  let out = 1;
  for (let i = 0; i < n; i += 1) out *= x;
  return out;
}
