/**
 * Merge results: the target branch moved because of the queue, or a merge failed.
 *
 * Rules:
 * - `mergeDone`: the PRs of the merge are `merged` (`MERGE_GRAPH_MERGE`, or
 *   `MERGE_GRAPH_DIRECT_MERGE` for a direct merge) and leave the state; the tip becomes the new sha.
 *   Every remaining tree drops those PRs from `ahead`: a run that had exactly them at the bottom of
 *   its tree, in that order, still tests tip + ahead + prs; any other run (another lane merged, or
 *   two lanes merged in another order than its tree) is no longer exact, and merges by rebasing.
 *   The merged PRs are good outcomes for the failure rate (failure-rate.ts).
 * - `mergeFailed`: PRs that did land before the failure are merged; the PR to blame fails with the
 *   reason given (`GITHUB_API_MERGE_PR_FAILED`, `PR_UPDATED_AT_MERGE_TIME`, ...) and the runs that
 *   had it in their tree restart; the other PRs keep their results and are merged again. A lost
 *   compare-and-swap (`TARGET_BRANCH_MOVED`) blames nobody: the tip moved, everything restarts on it.
 * Invariant: a merge result that does not name the merge in flight is ignored, so nothing is ever
 * recorded as merged twice.
 */
import { type EngineEvent } from './events';
import { type Draft, entryOf, finish, inMerge, membersOf, note } from './draft';
import { observeMerged } from './failure-rate';
import { dissolveGroup, pruneGroup, sameList } from './groups';
import { targetsIntersect, type TargetList } from './lanes';
import { rebaseResults } from './known-results';
import { type Group, type MergeInFlight } from './model';
import { type MergeFailureReason } from './reasons';
import { tipMoved } from './target-branch';

export function onMergeDone(d: Draft, event: Extract<EngineEvent, { type: 'mergeDone' }>): void {
  const merge = currentMerge(d, event);
  if (!merge) return;
  d.state.merge = null;
  landed(d, merge, merge.prs, event.newTipSha);
}

export function onMergeFailed(d: Draft, event: Extract<EngineEvent, { type: 'mergeFailed' }>): void {
  const merge = currentMerge(d, event);
  if (!merge) return;
  d.state.merge = null;
  const mergedPrs = merge.prs.filter((pr) => event.mergedPrs.includes(pr));
  if (mergedPrs.length > 0) landed(d, merge, mergedPrs, event.tipSha ?? d.state.tipSha);
  if (event.reason === 'TARGET_BRANCH_MOVED') {
    if (event.tipSha !== null) tipMoved(d, event.tipSha);
    return;
  }
  const culprit = event.pr ?? merge.prs.find((pr) => !mergedPrs.includes(pr)) ?? null;
  const entry = culprit === null ? undefined : entryOf(d, culprit);
  if (!entry) return;
  note(d, [entry.pr], 'PREREQUISITE_MERGE_ITEM_FAILED');
  const groupKey = entry.group;
  finish(d, entry, { to: 'failed', reason: failureReason(merge, event.reason) }, merge.runId);
  const group = d.state.groups.find((g) => g.key === groupKey);
  if (group) pruneGroup(d, group);
}

function landed(d: Draft, merge: MergeInFlight, prs: readonly number[], tipSha: string | null): void {
  const reason = merge.via === 'direct' ? 'MERGE_GRAPH_DIRECT_MERGE' : 'MERGE_GRAPH_MERGE';
  // Read before the entries leave: what the landed PRs touch, as of now (targets may change mid-merge).
  const landedTargets = new Map<number, TargetList>(
    prs.map((pr) => [pr, entryOf(d, pr)?.targets?.targets ?? 'ALL']),
  );
  for (const pr of prs) {
    const entry = entryOf(d, pr);
    if (entry) finish(d, entry, { to: 'merged', reason }, merge.runId);
  }
  observeMerged(d, prs.length);
  d.state.tipSha = tipSha;
  const merged = new Set(prs);
  for (const group of [...d.state.groups]) {
    pruneGroup(d, group);
    // A bisection chunk's tree is evidence about its PRs, not the target's future: it stays valid.
    if (group.bisection) {
      group.exact = false;
      continue;
    }
    // Still exactly tip + ahead + prs only if the tip grew by the start of `ahead`, in that order:
    // the tested commit then descends from the new tip.
    if (!sameList(group.ahead.slice(0, prs.length), prs)) {
      group.exact = false;
      // A tree another lane merged under stays valid only while that lane is disjoint from it.
      if (d.state.groups.includes(group) && overlapsLanded(d, group, landedTargets)) {
        dissolveGroup(d, group, 'TEST_TREE_CHANGED');
        continue;
      }
    }
    group.ahead = group.ahead.filter((pr) => !merged.has(pr));
  }
  rebaseResults(d, prs);
}

/** Whether a PR that landed from outside the group's tested tree touches what the group touches. */
function overlapsLanded(d: Draft, group: Group, landedTargets: ReadonlyMap<number, TargetList>): boolean {
  if (group.direct || group.prs.some((pr) => inMerge(d, pr))) return false;
  const outside = [...landedTargets].filter(([pr]) => !group.ahead.includes(pr)).map(([, t]) => t);
  return membersOf(d, group).some((e) =>
    outside.some((t) => targetsIntersect(e.targets?.targets ?? 'ALL', t)),
  );
}

function failureReason(merge: MergeInFlight, reason: MergeFailureReason): MergeFailureReason {
  if (merge.via === 'direct' && reason === 'GITHUB_API_MERGE_PR_FAILED')
    return 'GITHUB_API_DIRECT_MERGE_PR_FAILED';
  return reason;
}

/** The merge a report is about; null for one no longer in flight (a late or repeated report). */
function currentMerge(d: Draft, event: { mergeId: string }): MergeInFlight | null {
  return d.state.merge?.mergeId === event.mergeId ? d.state.merge : null;
}
