/**
 * Pending failure: when a failed run's PRs are blamed.
 *
 * Rule (Trunk's pending failure depth, trunk-compat §4): a failed group is `pending_failure` and
 * always waits for its predecessors (the PRs under it in its tree) to leave: if one of them fails,
 * this run tested a tree that will never exist and it is retested without it (the restart comes from
 * invalidation.ts); if they all merge, the failure is its own. With `pendingFailureDepth = N` it also
 * waits for the nearest N runs built on top of it (main line only): with optimistic merging, one of
 * them passing merges the failed group too (optimistic-merge.ts), which is how a flake is forgiven.
 * When the wait is over the group is blamed: a named culprit fails alone (its group mates go back to
 * pending), a single PR fails with the run's reason, a batch leaves the line to be bisected beside
 * it (bisection.ts, which also blames its chunks). Each PR blamed is a culprit for the failure rate
 * (failure-rate.ts).
 * Invariants:
 * - At most N runs start on top of a main-line failed group (`allowsSuccessors`), so waiting is
 *   bounded by N runs, never by future arrivals.
 * - Nothing starts on top of a failed bisection chunk or a failed group with a culprit: its failure
 *   is known to be real for that tree, and a run on top of it could only fail.
 */
import { bisect } from './bisection';
import { type Draft, entryOf, finish, inMerge, note } from './draft';
import { observeCulprit } from './failure-rate';
import { dependentsOf, dissolveGroup, groupsInLineOrder } from './groups';
import { type Group } from './model';

/** Whether another run may be started on top of this failed group. */
export function allowsSuccessors(d: Draft, group: Group): boolean {
  if (group.status !== 'failed' || group.bisection || group.failure?.culpritPr != null) return false;
  return dependentsOf(d, group).length < d.state.config.pendingFailureDepth;
}

/** Blames every failed group whose wait is over, in line order. */
export function resolvePendingFailures(d: Draft): void {
  for (const group of groupsInLineOrder(d)) {
    // Bisection chunks are blamed by their bisection (bisection.ts).
    if (group.status !== 'failed' || group.bisection || !d.state.groups.includes(group)) continue;
    if (group.prs.some((pr) => inMerge(d, pr))) continue;
    if (group.ahead.length > 0) continue;
    if (awaitsSuccessors(d, group)) continue;
    blame(d, group);
  }
}

function awaitsSuccessors(d: Draft, group: Group): boolean {
  const depth = d.state.config.pendingFailureDepth;
  if (depth === 0) return false;
  return dependentsOf(d, group)
    .slice(0, depth)
    .some((g) => g.status === 'testing');
}

function blame(d: Draft, group: Group): void {
  const failure = group.failure ?? { reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', culpritPr: null };
  const culprit = failure.culpritPr ?? (group.prs.length === 1 ? group.prs[0]! : null);
  if (culprit === null) {
    bisect(d, group);
    return;
  }
  const entry = entryOf(d, culprit);
  observeCulprit(d);
  if (entry) entry.group = null;
  note(d, [culprit], 'PREREQUISITE_MERGE_ITEM_FAILED');
  group.prs = group.prs.filter((pr) => pr !== culprit);
  if (group.prs.length > 0) dissolveGroup(d, group, 'PREREQUISITE_MERGE_ITEM_FAILED');
  else d.state.groups = d.state.groups.filter((g) => g !== group);
  if (!entry) return;
  // A failure retried as flaky-only names every run it rests on; a single run needs no list.
  const retried = group.retriedRuns ?? [];
  const runs = retried.length > 0 && group.runId !== null ? [...retried, group.runId] : [];
  finish(d, entry, { to: 'failed', reason: failure.reason }, group.runId, runs, group.failedTests?.ids ?? []);
}
