/**
 * Speculation threshold: how deep batches are stacked on runs that have not passed yet.
 *
 * Rule: with batching on, a new batch that would be tested on top of PRs whose runs are undecided
 * (in flight, or formed and waiting for one) starts only while the chance that all those PRs pass,
 * given what the queue knows about them, is at least `speculationThreshold`. That is the
 * conditional chance, not the unconditional (1 - failure rate)^count (failure-rate.ts measures the
 * rate): a PR the bisection of its batch found good (`cleared`, bisection.ts) passes for sure (only
 * an interaction with what merged since could break it, and the rate does not measure those), so it
 * counts 1; any other undecided PR counts (1 - rate). PRs under bisection, which almost surely hold
 * a culprit, are never under a new batch: they are beside the line. Uber's SubmitQueue chooses
 * builds by the same kind of chance (the probability that their result is used).
 * Otherwise it waits, and its slot stays free, until runs under it finish.
 * Why: a batch stacked on a batch that fails tested a tree holding the culprit, so its run is
 * cancelled and its CI spent for nothing; that waste is most of what batching with concurrency > 1
 * costs over concurrency 1 (bench/README.md). The chance of it falls geometrically with the
 * undecided PRs underneath, so a threshold on it caps the depth where waste would dominate, and
 * because the rate is measured the depth follows the queue: as deep as `concurrency` allows when
 * PRs rarely break, shallower when they often do. This is Zuul's adaptive window driven by the
 * measured rate instead of by the last result: failures are mostly independent, so a window that
 * halves at each one reacts to chance (measured at batches of 8: about the same saving for 14% of
 * throughput instead of 2%).
 * - Not counted under a batch: PRs of groups that passed (what can still go wrong with them is
 *   the groups under them, which are counted), and a failed group that takes successors under
 *   `pendingFailureDepth`: those runs are asked for by that setting, to tell a flake from a
 *   culprit (pending-failure.ts).
 * - Only new main-line batches wait. A lane's head (nothing undecided under it) always starts, so
 *   the queue never stalls; bisection runs and restarts in place are not held back.
 * - With `batchingMode: adaptive` the plan sets the depth instead (adaptive-batching.ts).
 * - Without batching, predictive testing stacks single PRs as deep as `concurrency` (Trunk's
 *   semantics, which the optimistic bound assumes), so the threshold does not apply.
 * Invariants: holding a batch back cancels nothing and changes no tree, like a full set of slots;
 * no threshold (0) is exactly Trunk's behaviour; the power is a product of doubles (no Math.pow), so replays compute the same bits.
 */
import { isAdaptive } from './adaptive-batching';
import { type Draft } from './draft';
import { failureRateOf } from './failure-rate';
import { treeOf } from './lanes';
import { type Entry } from './model';

/** Whether a new batch of `members` may start on top of the PRs it depends on (lanes.ts). */
export function mayStack(d: Draft, members: readonly Entry[]): boolean {
  const { batch, speculationThreshold } = d.state.config;
  // Checked first: the tree walk is the costly part, and most queues have no threshold to apply.
  // An adaptive queue's depth is its plan's, which already priced the stacking at the same rate.
  if (!batch || speculationThreshold <= 0 || isAdaptive(d.state.config)) return true;
  const undecided = uncertainPrs(d, treeOf(d, members));
  return chanceAllPass(failureRateOf(d.state), undecided) >= speculationThreshold;
}

/** (1 - rate)^prs: the chance that `prs` PRs not known good all pass; 1 when there are none. */
export function chanceAllPass(rate: number, prs: number): number {
  let chance = 1;
  for (let i = 0; i < prs; i += 1) chance *= 1 - rate;
  return chance;
}

/** Undecided PRs under the batch that are not known good: each may still fail, with the rate. */
export function uncertainPrs(d: Draft, tree: readonly Entry[]): number {
  const status = new Map(d.state.groups.map((g) => [g.key, g.status]));
  return tree.filter((e) => {
    if (e.cleared) return false;
    const s = e.group === null ? undefined : status.get(e.group);
    return s === 'testing' || s === 'waiting';
  }).length;
}
