/**
 * Test slots: which runs start now.
 *
 * Rules:
 * - Main runs: at most `concurrency` at once (new groups: at most the adaptive plan's depth with
 *   `batchingMode: adaptive`, adaptive-batching.ts); a new group starts only while the queue is `running`,
 *   a group restarted in place also while draining or switching modes (queue-state.ts). Bisection
 *   runs: at most `bisectionConcurrency` at once, separate slots, while running or draining.
 * - Groups already formed and waiting for a run (bisection chunks, restarts in place) go first, in
 *   line order. Then new groups: among the pending PRs that could start (every dependency can serve as
 *   a base, lanes.ts), the least speculative one first (shortest dependency chain below it), then
 *   line order; in single mode that is simply the first pending PR. It seeds a batch (batching.ts),
 *   may merge directly (direct-merge.ts), or waits, in which case the next lane is tried: for its
 *   batch to fill, or, stacked too deep on undecided runs, for those runs
 *   (speculation-threshold.ts).
 * - A group that is itself failed with successors allowed (pending-failure.ts) can serve as a base.
 *   A bisection chunk is a base only for the later chunks of its own bisection (they are tested on
 *   it, lanes.treeOf), never for the main line, and a failed one for nothing.
 * - With `bisection_skip_redundant_tests`, a bisection chunk whose tree has a known result takes it
 *   without a run (known-results.ts).
 * Invariant: a new run's tree is computed after its members take their final line position, so it
 * is exactly what invalidation.ts will expect of it.
 */
import { isAdaptive, planOf } from './adaptive-batching';
import { batchWaitsUntil, formBatch } from './batching';
import { mayMergeDirectly, mergeDirectly } from './direct-merge';
import { type Draft, membersOf } from './draft';
import { createGroup, groupsInLineOrder, startRun } from './groups';
import { lookupResult } from './known-results';
import { candidates, treeOf } from './lanes';
import { type Entry, type Group } from './model';
import { allowsSuccessors } from './pending-failure';
import { mayStartRun, type RunKind } from './queue-state';
import { mayStack } from './speculation-threshold';
import { failGroup, passGroup } from './test-runs';

export function startRuns(d: Draft): void {
  startWaitingGroups(d);
  while (startNewGroup(d));
}

export function usableAsBase(d: Draft, group: Group): boolean {
  if (group.status === 'testing' || group.status === 'passed') return true;
  return group.status === 'failed' && allowsSuccessors(d, group);
}

function freeSlots(d: Draft, kind: RunKind): number {
  const { status, config } = d.state;
  if (!mayStartRun(kind, status)) return 0;
  const bisection = kind === 'bisection';
  const busy = d.state.groups.filter((g) => g.status === 'testing' && g.bisection === bisection).length;
  return (
    (bisection ? config.bisectionConcurrency : kind === 'new' ? mainDepth(d) : config.concurrency) - busy
  );
}

/** How many main runs new groups may fill: `concurrency`, or the adaptive plan's depth. */
function mainDepth(d: Draft): number {
  return isAdaptive(d.state.config) ? planOf(d).depth : d.state.config.concurrency;
}

function startWaitingGroups(d: Draft): void {
  for (const group of groupsInLineOrder(d)) {
    if (group.status !== 'waiting' || !d.state.groups.includes(group)) continue;
    const tree = treeOf(d, membersOf(d, group));
    if (!treeUsable(d, tree)) continue;
    const known = group.bisection ? lookupResult(d, [...tree.map((e) => e.pr), ...group.prs]) : undefined;
    if (known) {
      Object.assign(group, { ahead: tree.map((e) => e.pr), exact: true, runId: known.runId });
      if (known.passed) passGroup(d, group, 'KNOWN_RESULT_REUSED');
      else failGroup(d, group, { reason: 'TEST_RUN_FAILED_BY_OPTIMIZATION', culpritPr: null });
    } else if (freeSlots(d, group.bisection ? 'bisection' : 'restart') > 0) {
      startRun(d, group, tree);
    }
  }
}

/** Starts (or directly merges) one new group; false when nothing more can start now. */
function startNewGroup(d: Draft): boolean {
  if (freeSlots(d, 'new') <= 0) return false;
  const usable = (g: Group) => usableAsBase(d, g);
  for (const { entry } of candidates(d, usable)) {
    const batch = formBatch(d, entry, usable);
    if (batch.members.length === 1 && mayMergeDirectly(d, entry, treeOf(d, [entry]))) {
      mergeDirectly(d, entry);
      return true;
    }
    if (!mayStack(d, batch.members)) continue;
    const waitUntil = batchWaitsUntil(d, batch);
    if (waitUntil !== null) {
      d.wakes.push(waitUntil);
      continue;
    }
    const group = createGroup(d, batch.members, { bisection: false, direct: false, status: 'waiting' });
    startRun(d, group, treeOf(d, batch.members));
    return true;
  }
  return false;
}

function treeUsable(d: Draft, tree: readonly Entry[]): boolean {
  return tree.every((e) => {
    const group = d.state.groups.find((g) => g.key === e.group);
    return !!group && usableAsBase(d, group);
  });
}
