/**
 * Batching: which pending PRs are tested together in one run, and when a batch starts.
 *
 * Rules (trunk-compat §4):
 * - With `batch` on, a batch takes up to `batchingMinSize` (Trunk's "target batch size") pending
 *   PRs in line order, starting at the chosen PR; a `noBatch` PR is always tested alone and keeps
 *   its place, and nothing behind it joins a batch ahead of it.
 * - A batch starts when it is full, or when its oldest PR has waited `batchingMaxWaitTimeMinutes`,
 *   or at once when it can no longer grow (a PR it cannot take is next in its lane), or when it is
 *   made of PRs that were already tested and are being restarted.
 * - In parallel mode a batch stays in one lane: a PR joins only if its targets intersect the
 *   batch's, every PR it depends on ahead of the batch can serve as a base, and nothing between it
 *   and the batch's first PR conflicts with it (so the batch is one contiguous step of its lane).
 * - With `batchingMode: adaptive` the size and the wait are the plan's (adaptive-batching.ts): up to
 *   the planned size, and an under-full batch waits only while another under-full one is in flight.
 * Invariant: the PRs in a batch keep their relative line order, and the batch is tested on exactly
 * the union of its members' dependencies.
 */
import { isAdaptive, planOf } from './adaptive-batching';
import { type Draft } from './draft';
import { addTargets, conflicts, targetSet, targetsOf, treeOf } from './lanes';
import { type Entry, type Group } from './model';
import { line } from './ordering';

export interface Batch {
  members: Entry[];
  /** It cannot grow any more, so waiting for more PRs is pointless. */
  closed: boolean;
}

export function formBatch(d: Draft, seed: Entry, usable: (group: Group) => boolean): Batch {
  const config = d.state.config;
  const max = config.batch && !seed.noBatch ? targetSize(d) : 1;
  const members = [seed];
  if (max === 1) return { members, closed: true };
  const ln = line(d);
  const union = targetSet(targetsOf(d, seed));
  const between = targetSet();
  let blocked = false;
  for (let i = ln.indexOf(seed) + 1; i < ln.length && members.length < max; i += 1) {
    const e = ln[i]!;
    const targets = targetsOf(d, e);
    const sameLane = conflicts(union, targets);
    if (sameLane && canJoin(d, members, e, usable) && !conflicts(between, targets)) {
      members.push(e);
      addTargets(union, targets);
    } else {
      if (sameLane) blocked = true;
      addTargets(between, targets);
    }
  }
  return { members, closed: blocked || members.length >= max };
}

/** When the batch should start if it is not closed; null when it may start now. */
export function batchWaitsUntil(d: Draft, batch: Batch): number | null {
  const config = d.state.config;
  if (!config.batch || batch.closed) return null;
  if (batch.members.some((e) => e.started)) return null;
  if (isAdaptive(config) && !underFullInFlight(d)) return null;
  const oldest = Math.min(...batch.members.map((e) => e.queuedAt));
  const due = oldest + config.batchingMaxWaitTimeMinutes * 60_000;
  return due > d.ctx.now ? due : null;
}

/** The size a batch grows to: Trunk's target batch size, or the adaptive plan's. */
function targetSize(d: Draft): number {
  return isAdaptive(d.state.config) ? planOf(d).size : d.state.config.batchingMinSize;
}

/** Adaptive: a main-line run of fewer PRs than the plan's size is in flight. */
function underFullInFlight(d: Draft): boolean {
  const size = planOf(d).size;
  return d.state.groups.some(
    (g) => g.status === 'testing' && !g.bisection && !g.direct && g.prs.length < size,
  );
}

function canJoin(d: Draft, members: Entry[], e: Entry, usable: (group: Group) => boolean): boolean {
  if (e.state !== 'pending' || e.group !== null || e.noBatch) return false;
  return treeOf(d, [...members, e]).every((dep) => {
    const group = d.state.groups.find((g) => g.key === dep.group);
    return !!group && usable(group);
  });
}
