/**
 * The target branch moving outside the queue.
 *
 * Rule: every tree the queue built or decided was built on the old tip, so after a push the engine
 * cannot vouch for any of them: all groups not being merged are dissolved and their PRs go back to
 * `pending` (`MANUAL_PUSH_TO_TARGET_BRANCH`), known results are dropped, and the line is tested again
 * on the new tip, in the same order. A PR merged by hand while queued leaves as `merged`
 * (`MANUAL_MERGE`) and the runs that had it in their tree restart
 * (`PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED`).
 * Invariant: a push to the sha the engine already holds is the echo of its own merge and changes
 * nothing. A merge in flight is left alone: its compare-and-swap fails against the new tip and
 * `mergeFailed(TARGET_BRANCH_MOVED)` restarts it.
 */
import { type Draft, entryOf, finish, inMerge } from './draft';
import { dissolveGroup, leaveGroup } from './groups';
import { clearResults } from './known-results';

export function onTargetBranchMoved(d: Draft, sha: string): void {
  if (sha === d.state.tipSha) return;
  tipMoved(d, sha);
}

export function tipMoved(d: Draft, sha: string): void {
  d.state.tipSha = sha;
  clearResults(d);
  for (const group of [...d.state.groups]) {
    if (group.prs.some((pr) => inMerge(d, pr))) continue;
    // A bisection chunk's tree is evidence about its own PRs, whatever the tip (bisection.ts).
    if (group.bisection) {
      group.exact = false;
      continue;
    }
    dissolveGroup(d, group, 'MANUAL_PUSH_TO_TARGET_BRANCH');
  }
}

export function onMergedOutsideQueue(d: Draft, pr: number): void {
  const entry = entryOf(d, pr);
  // Not waiting in the queue: nothing to take out.
  if (!entry || inMerge(d, pr)) return;
  leaveGroup(d, entry, 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED');
  // Not merged through a tip the engine knows, so no result can be re-based onto it.
  d.state.knownResults = d.state.knownResults.filter((r) => !r.tree.includes(pr));
  finish(d, entry, { to: 'merged', reason: 'MANUAL_MERGE' });
}
