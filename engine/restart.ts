/**
 * Restart in place (`restartTestsOnPullRequest`).
 *
 * Rule (trunk-compat §1.3): the PR is tested again without moving and without making anyone else
 * retest. Its group keeps its place and members and gets a new run on the same tree; the runs built
 * on top of it stay valid, because that tree has not changed. A batch is one run, so restarting one
 * of its PRs re-runs the batch. A known result for the tree is forgotten: the user asked for a run.
 * The new run is part of the work in flight, so it starts while draining or switching modes too
 * (queue-state.ts): the runs built on the group, and a mode switch, wait for it.
 * Invariants: a PR that is only waiting (`pending`, `not_ready`) or is being merged has nothing to
 * restart; the request is logged and ignored.
 */
import { type EngineEvent } from './events';
import { type Draft, entryOf, groupOf, inMerge, membersOf, transition } from './draft';
import { cancelRun } from './groups';
import { forgetResult, treeKey } from './known-results';

export function onRestarted(d: Draft, event: Extract<EngineEvent, { type: 'restarted' }>): void {
  const entry = entryOf(d, event.pr);
  const group = groupOf(d, entry?.group ?? null);
  // No test run to restart: nothing to do.
  if (!entry || !group || group.direct || group.status === 'waiting' || inMerge(d, entry.pr)) return;
  forgetResult(d, treeKey(group));
  cancelRun(d, group, event.reason);
  Object.assign(group, { status: 'waiting', runId: null, failure: null, deadline: null });
  for (const e of membersOf(d, group)) transition(d, e, { to: 'pending', reason: event.reason });
}
