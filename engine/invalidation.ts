/**
 * Invalidation: restarting the runs whose tested tree is no longer the one the line calls for.
 *
 * Rule: after every change, each group is checked against the tree the line now gives it (lanes.ts):
 * the tree it was tested on, or, for a group still waiting for a run, the one it was formed for. If its dependencies differ (a PR under it left, a PR was put
 * ahead of it, impacted targets changed, the mode changed) or one of them lost its group (its run was
 * restarted with a different tree), the run tested something that will never be the target: it is
 * cancelled and its PRs go back to `pending`, keeping their place in line. In single mode a tree that
 * is no longer exact (another lane merged under it before a switch from parallel mode) is stale too.
 * The restart reason is the note left by whatever changed (draft.notes): the first PR, among those
 * that differ or lost their group and the group's own members, that carries one; `TEST_TREE_CHANGED`
 * if none does.
 * Invariants: groups being merged and direct merges are never invalidated (the merge is out); the
 * check runs in line order, so a restart cascades to everything built on it within one pass.
 */
import { type Draft, inMerge, membersOf } from './draft';
import { dissolveGroup, groupsInLineOrder, sameList } from './groups';
import { treeOf } from './lanes';
import { type Group } from './model';
import { type RestartReason } from './reasons';

export function invalidateStaleGroups(d: Draft): void {
  for (const group of groupsInLineOrder(d)) {
    if (group.direct || !d.state.groups.includes(group)) continue;
    if (group.prs.some((pr) => inMerge(d, pr))) continue;
    const tree = treeOf(d, membersOf(d, group));
    const expected = tree.map((e) => e.pr);
    const ungrouped = tree.filter((e) => e.group === null).map((e) => e.pr);
    // Single mode promises the target only ever holds a tested tree, so a tree that another lane
    // merged underneath (left over from parallel mode) no longer counts.
    const drifted = !group.exact && d.state.config.mode === 'single' && !group.bisection;
    if (!drifted && ungrouped.length === 0 && sameList(expected, group.ahead)) continue;
    dissolveGroup(d, group, restartReason(d, group, expected, ungrouped));
  }
}

function restartReason(d: Draft, group: Group, expected: number[], ungrouped: number[]): RestartReason {
  const differing = [
    ...group.ahead.filter((pr) => !expected.includes(pr)),
    ...expected.filter((pr) => !group.ahead.includes(pr)),
  ];
  for (const pr of [...differing, ...ungrouped, ...group.prs]) {
    const reason = d.notes.get(pr);
    if (reason) return reason;
  }
  return 'TEST_TREE_CHANGED';
}
