/**
 * Known results: what an identical tree already showed, for `bisection_skip_redundant_tests`.
 *
 * Rule (Trunk's "test caching"): during bisection, a chunk whose tree (tip + PRs, in order) is one
 * the queue has a result for takes that result instead of running CI; a failure taken this way is
 * blamed with `TEST_RUN_FAILED_BY_OPTIMIZATION`. The bisection itself knows that the half after
 * the first of its chunks repeats the failed tree (bisection.ts), so it needs no stored result for
 * that; this lookup catches any other tree already run on the current tip.
 * Invariants:
 * - A result is stored relative to the current tip: when PRs merge, results whose tree starts with
 *   exactly those PRs are shortened (the same tree, seen from the new tip); any other result is
 *   dropped, because its base is no longer the tip. A push to the target drops them all.
 * - Only exact trees are recorded (never one that another lane merged underneath).
 * - Results mentioning a PR that left the queue are dropped (draft.finish), and at most
 *   `MAX_KNOWN_RESULTS` are kept, so the list stays small.
 * - A restart in place forgets the result for that tree: the user asked for a new run.
 */
import { type Draft } from './draft';
import { sameList } from './groups';
import { type Group, type KnownResult } from './model';

export const MAX_KNOWN_RESULTS = 64;

export function treeKey(group: Group): number[] {
  return [...group.ahead, ...group.prs];
}

export function recordResult(d: Draft, group: Group, passed: boolean): void {
  if (!group.exact) return;
  const tree = treeKey(group);
  const kept = d.state.knownResults.filter((r) => !sameList(r.tree, tree));
  kept.push({ tree, passed, runId: group.runId });
  d.state.knownResults = kept.slice(-MAX_KNOWN_RESULTS);
}

export function lookupResult(d: Draft, tree: readonly number[]): KnownResult | undefined {
  if (d.state.config.optimizationMode !== 'bisection_skip_redundant_tests') return undefined;
  return d.state.knownResults.find((r) => sameList(r.tree, tree));
}

export function forgetResult(d: Draft, tree: readonly number[]): void {
  d.state.knownResults = d.state.knownResults.filter((r) => !sameList(r.tree, tree));
}

/** Re-bases the results on a tip that now holds `merged` (in the order they were merged). */
export function rebaseResults(d: Draft, merged: readonly number[]): void {
  const set = new Set(merged);
  d.state.knownResults = d.state.knownResults.flatMap((r) => {
    const prefix = r.tree.slice(0, merged.length);
    if (prefix.length !== merged.length || !prefix.every((pr) => set.has(pr))) return [];
    const rest = r.tree.slice(merged.length);
    return rest.length > 0 ? [{ ...r, tree: rest }] : [];
  });
}

export function clearResults(d: Draft): void {
  d.state.knownResults = [];
}
