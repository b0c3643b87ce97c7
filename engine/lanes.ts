/**
 * Lanes: which PRs a PR is tested on top of.
 *
 * Rule (Trunk's parallel mode, trunk-compat §4): a PR depends on every earlier PR in the line whose
 * impacted targets intersect its own, and, transitively, on what those depend on. `'ALL'` intersects
 * every non-empty set, so an `ALL` PR depends on everything ahead and everything behind depends on it;
 * `[]` intersects nothing, so an empty PR depends on nothing and nothing depends on it (even an `ALL`
 * PR: "impacts everything" and "impacts nothing" do not overlap). Single mode is the special case
 * where every PR impacts `ALL`: one line, each PR tested on everything ahead (predictive testing).
 *
 * Algorithm. The tree of a group (the PRs it is tested on top of) is found by one backward walk over
 * the line from the group's first member, carrying S = the union of the targets of the group and of
 * every dependency found so far: an earlier PR is a dependency iff its targets intersect S, and when
 * one is taken its whole group is taken (a run tests whole groups, so trees stay group-closed). S at a
 * position is exactly the union over the dependencies behind that position, so the walk computes the
 * transitive closure in O(line x targets). A PR is tested on *exactly* its transitive dependencies:
 * direct ones alone are not enough, because a dependency is merged only after its own dependencies,
 * so a tree without them is one the target branch will never hold. Example (Trunk's): A[frontend],
 * B[backend], C[frontend, backend], D[docs]: A, B and D are tested alone on the tip; C on tip + A + B.
 * A forward pass (`candidates`) finds which not-yet-tested PRs could start now: a PR can start when
 * every dependency is in a group that can serve as a base, found by keeping, per target, the last unit
 * that touched it (a PR depends on all earlier ones only through those, by transitivity).
 *
 * Relation to "the target only advances to a tested tree". In single mode every run's tree is tip +
 * everything ahead, merges happen in line order, and a merge moves the target to exactly the commit
 * the run tested (`via: tested_commit`). In parallel mode lanes merge independently, so when lane X
 * merges after lane Y's run started, Y's tested tree lacks X's PRs. Such a merge is `via: rebase`
 * and the invariant holds in the weaker form parallel mode promises: the new tip equals a tested tree
 * plus PRs whose impacted targets are disjoint from everything in it. It is only as strong as the
 * impacted targets are correct; a wrong upload is the user's to fix (or upload `ALL`).
 */
import { type Draft } from './draft';
import { type Entry, type Group } from './model';
import { line } from './ordering';

export type TargetList = string[] | 'ALL';

/** A union of target lists, built while walking the line (never stored in the state). */
export interface TargetSet {
  all: boolean;
  names: Set<string>;
}

export function targetsOf(d: Draft, entry: Entry): TargetList {
  if (d.state.config.mode === 'single') return 'ALL';
  return entry.targets?.targets ?? 'ALL';
}

export function targetSet(...lists: TargetList[]): TargetSet {
  const set: TargetSet = { all: false, names: new Set() };
  for (const list of lists) addTargets(set, list);
  return set;
}

export function addTargets(set: TargetSet, targets: TargetList): void {
  if (targets === 'ALL') set.all = true;
  else for (const t of targets) set.names.add(t);
}

export function conflicts(set: TargetSet, targets: TargetList): boolean {
  if (targets === 'ALL') return set.all || set.names.size > 0;
  if (targets.length === 0) return false;
  return set.all || targets.some((t) => set.names.has(t));
}

/** Do two PRs' impacted targets intersect? */
export function targetsIntersect(a: TargetList, b: TargetList): boolean {
  return conflicts(targetSet(a), b);
}

/**
 * The dependencies of a group (or would-be group), in line order: its tree is tip + these + members.
 * Everything before the first member is in the line (not-ready PRs are kept after it), so the walk
 * reads `entries` directly. PRs under bisection are beside the line: a main-line tree never holds
 * them, and a bisection chunk's tree is the chunks before it of its own bisection (bisection.ts).
 */
export function treeOf(d: Draft, members: readonly Entry[]): Entry[] {
  const first = members[0];
  if (!first) return [];
  const beside = new Map<number, number>();
  for (const g of d.state.groups) if (g.bisection) beside.set(g.key, g.bisectionKey ?? g.key);
  const entries = d.state.entries;
  const start = entries.indexOf(first);
  const session = first.group === null ? undefined : beside.get(first.group);
  if (session !== undefined) {
    const own = new Set(members);
    return entries
      .slice(0, Math.max(0, start))
      .filter((e) => !own.has(e) && e.group !== null && beside.get(e.group) === session);
  }
  const memberSet = new Set(members);
  const single = d.state.config.mode === 'single';
  const set = targetSet(...members.map((m) => targetsOf(d, m)));
  const included = new Set<Entry>();
  const groups = new Set<number>();
  const take = (e: Entry) => {
    included.add(e);
    if (!single) addTargets(set, targetsOf(d, e));
  };
  for (let i = start - 1; i >= 0; i -= 1) {
    const e = entries[i]!;
    if (memberSet.has(e) || included.has(e)) continue;
    if (e.group !== null && beside.has(e.group)) continue;
    const inTakenGroup = e.group !== null && groups.has(e.group);
    if (!single && !inTakenGroup && !conflicts(set, targetsOf(d, e))) continue;
    take(e);
    if (e.group === null) continue;
    groups.add(e.group);
    // Members after this one were walked past before the group was taken; they are adjacent.
    for (let j = i + 1; j < start && entries[j]!.group === e.group; j += 1) take(entries[j]!);
  }
  return entries.slice(0, Math.max(0, start)).filter((e) => included.has(e));
}

export interface Candidate {
  entry: Entry;
  /** Length of the longest dependency chain below it (0 on an idle lane): lower is less speculative. */
  depth: number;
}

interface UnitInfo {
  ok: boolean;
  depth: number;
}

/**
 * The pending, not yet grouped PRs that could start now (every dependency in a group that can serve
 * as a base), least speculative first, then in line order. One forward pass over the line; in single
 * mode it stops at the first such PR, since every later one depends on it.
 */
export function candidates(d: Draft, usable: (group: Group) => boolean): Candidate[] {
  const ln = line(d);
  const single = d.state.config.mode === 'single';
  const groups = new Map(d.state.groups.map((g) => [g.key, g]));
  const out: (Candidate & { at: number })[] = [];
  const lastByTarget = new Map<string, UnitInfo>();
  let lastAll: UnitInfo | null = null;
  const everything: UnitInfo = { ok: true, depth: -1 };
  let anyBefore = false;
  for (let i = 0; i < ln.length;) {
    const head = ln[i]!;
    let j = i + 1;
    while (head.group !== null && j < ln.length && ln[j]!.group === head.group) j += 1;
    const targets = j === i + 1 ? targetsOf(d, head) : unitTargets(d, ln.slice(i, j));
    const at = i;
    i = j;
    let deps: UnitInfo[] = [];
    if (targets === 'ALL') deps = anyBefore ? [everything] : [];
    else if (targets.length > 0) {
      deps = targets.flatMap((t) => lastByTarget.get(t) ?? []);
      if (lastAll) deps.push(lastAll);
    }
    const depsOk = deps.every((x) => x.ok);
    const depth = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((x) => x.depth));
    const group = head.group === null ? undefined : groups.get(head.group);
    if (!group && head.state === 'pending') {
      if (depsOk) out.push({ entry: head, depth, at });
      if (single) break;
    }
    if (targets !== 'ALL' && targets.length === 0) continue;
    const info: UnitInfo = { ok: !!group && depsOk && usable(group), depth };
    if (targets === 'ALL') {
      lastAll = info;
      lastByTarget.clear();
    } else for (const t of targets) lastByTarget.set(t, info);
    everything.ok &&= info.ok;
    everything.depth = Math.max(everything.depth, info.depth);
    anyBefore = true;
  }
  return out.sort((a, b) => a.depth - b.depth || a.at - b.at).map(({ entry, depth }) => ({ entry, depth }));
}

function unitTargets(d: Draft, unit: readonly Entry[]): TargetList {
  const set = targetSet(...unit.map((e) => targetsOf(d, e)));
  return set.all ? 'ALL' : [...set.names];
}
