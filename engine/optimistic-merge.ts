/**
 * Choosing the next merge, with or without optimistic merging.
 *
 * Rule: a passed group merges together with every PR under it in its tested tree (`ahead`), as one
 * merge of exactly that tree.
 * - Without `canOptimisticallyMerge`, only when every group under it has passed too: PRs merge in
 *   line order, each on the strength of its own run.
 * - With it, whatever the groups under it are doing (testing, pending failure): a passing run
 *   proves its whole tree good (trunk-compat §4), so the PRs ahead merge with it, their own runs are
 *   cancelled, and a failure of theirs (a flake) is forgiven.
 * The furthest-back eligible group is chosen, so one merge lands as much as possible.
 * Invariants:
 * - One merge at a time (state.merge), so each compares-and-swaps against a tip the engine knows.
 * - A merge only ever carries a tree some run passed: the target advances to a tested tree
 *   (`tested_commit`), or, in parallel mode when another lane merged underneath, to a tested tree
 *   plus disjoint lanes (`rebase`, see lanes.ts).
 * - No merge while the queue is paused.
 */
import { type Draft, command, groupOf, membersOf, transition } from './draft';
import { cancelRun, groupsInLineOrder } from './groups';
import { type Group } from './model';
import { mayMerge } from './queue-state';

export function startNextMerge(d: Draft): void {
  if (d.state.merge || !mayMerge(d.state.status)) return;
  const optimistic = d.state.config.canOptimisticallyMerge;
  for (const group of groupsInLineOrder(d).reverse()) {
    // A bisection chunk that passed only clears its PRs for the line (bisection.ts); it never merges.
    if (group.status !== 'passed' || group.direct || group.bisection) continue;
    const carried = carriedGroups(d, group);
    if (!carried) continue;
    if (!optimistic && carried.some((g) => g.status !== 'passed')) continue;
    for (const g of carried) {
      if (g.status === 'passed') continue;
      cancelRun(d, g, 'COVERED_BY_PASSING_RUN');
      g.status = 'passed';
      g.failure = null;
      for (const e of membersOf(d, g)) {
        transition(d, e, { to: 'tests_passed', reason: 'LATER_TEST_RUN_PASSED' }, group.runId);
      }
    }
    const prs = [...group.ahead, ...group.prs];
    const via = group.exact ? 'tested_commit' : 'rebase';
    const mergeId = d.ctx.newId();
    d.state.merge = { mergeId, prs, via, runId: group.runId };
    command(d, {
      type: 'merge',
      mergeId,
      prs,
      via,
      runId: group.runId,
      method: d.state.config.mergeMethod,
      expectedTipSha: d.state.tipSha,
    });
    return;
  }
}

/** The groups holding the PRs under `group` in its tree, or null if one of them has no group. */
function carriedGroups(d: Draft, group: Group): Group[] | null {
  const carried: Group[] = [];
  for (const pr of group.ahead) {
    const entry = d.state.entries.find((e) => e.pr === pr);
    const g = groupOf(d, entry?.group ?? null);
    if (!g || g.status === 'waiting' || g.direct) return null;
    if (g.prs.some((member) => !group.ahead.includes(member))) return null;
    if (!carried.includes(g)) carried.push(g);
  }
  return carried;
}
