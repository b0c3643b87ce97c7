/**
 * Line order: which PR is ahead of which.
 *
 * Rule: the line is the started PRs in the order they started, then the never-started `pending`
 * PRs sorted by priority (lower first) then submission order; `not_ready` PRs are outside the line
 * (kept at the end of `entries` by submission order).
 * - A PR that has started keeps its position when it is restarted: a later, higher-priority PR does
 *   not overtake it ("higher priority starts testing before any not-yet-testing PR").
 * - Only priority 0 ("urgent", skip the line) goes ahead of started PRs: it is placed after the
 *   urgent PRs already started and after the PRs being merged, and every run that is now missing it
 *   restarts with `SKIP_THE_LINE_INTERRUPTED` (invalidation.ts).
 * - When a group starts, its members move to the end of the started segment. In single mode they
 *   are already there; in parallel mode a lane head may start before PRs of other lanes that are
 *   ahead of it, and moving it does not change anyone's dependencies because it starts only when
 *   no never-started PR it conflicts with is ahead of it.
 * - PRs under bisection (in a bisection chunk, bisection.ts) are beside the line: they keep a place in
 *   the started segment (their chunks need one) but are not in `line`, and no main-line tree holds
 *   them (lanes.ts). When their bisection finds them good, or ends without deciding them, they
 *   re-enter at the front of the PRs waiting to be tested, by priority then submission
 *   (`reenterLine`): behind the groups already testing (whose runs stay valid), ahead of every PR not
 *   yet in a run. An urgent one skips the line as on admission.
 * Invariant: `entries` = started ++ never-started pending (sorted) ++ not_ready (by seq).
 */
import { type Draft, inMerge, note } from './draft';
import { type Entry } from './model';

export const URGENT = 0;

/** Priority first, then submission order. */
export function ranksBefore(a: Entry, b: Entry): boolean {
  return a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq;
}

/** The PRs in the queue (admitted), in line order; PRs under bisection are beside it. */
export function line(d: Draft): Entry[] {
  const beside = besideTheLine(d);
  return d.state.entries.filter((e) => e.state !== 'not_ready' && !(e.group !== null && beside.has(e.group)));
}

/** Keys of the bisection chunks: their members are beside the line. */
export function besideTheLine(d: Draft): Set<number> {
  const keys = new Set<number>();
  for (const g of d.state.groups) if (g.bisection) keys.add(g.key);
  return keys;
}

/**
 * Puts PRs back in the line from a bisection (found good, or not decided by it): each must already
 * be `pending` without a group. Urgent ones skip the line; the others go, by priority then
 * submission, right behind the last PR that is in a main-line group or being merged, so no run in
 * flight sees its tree change.
 */
export function reenterLine(d: Draft, entries: readonly Entry[]): void {
  const sorted = [...entries].sort((a, b) => (ranksBefore(a, b) ? -1 : 1));
  for (const e of sorted.filter((x) => x.priority === URGENT)) placeAdmitted(d, e);
  const others = sorted.filter((x) => x.priority !== URGENT);
  if (others.length === 0) return;
  const moving = new Set(others);
  const rest = d.state.entries.filter((e) => !moving.has(e));
  const beside = besideTheLine(d);
  let at = 0;
  rest.forEach((e, i) => {
    if (!e.started) return;
    if ((e.group !== null && !beside.has(e.group)) || inMerge(d, e.pr)) at = i + 1;
  });
  for (const e of others) e.started = true;
  rest.splice(at, 0, ...others);
  d.state.entries = rest;
  d.dirty = true;
}

/** Places an entry that is (or just became) pending; re-places it after a priority change. */
export function placeAdmitted(d: Draft, entry: Entry): void {
  const rest = d.state.entries.filter((e) => e !== entry);
  if (entry.priority === URGENT) {
    let at = 0;
    rest.forEach((e, i) => {
      if ((e.started && e.priority === URGENT) || inMerge(d, e.pr)) at = i + 1;
    });
    // Never split a group: its members stay one contiguous block.
    while (
      at > 0 &&
      at < rest.length &&
      rest[at]!.group !== null &&
      rest[at]!.group === rest[at - 1]!.group
    ) {
      at += 1;
    }
    entry.started = true;
    rest.splice(at, 0, entry);
    note(d, [entry.pr], 'SKIP_THE_LINE_INTERRUPTED');
  } else {
    entry.started = false;
    const at = rest.findIndex((e) => e.state === 'not_ready' || (!e.started && ranksBefore(entry, e)));
    rest.splice(at === -1 ? rest.length : at, 0, entry);
  }
  d.state.entries = rest;
  d.dirty = true;
}

/** Takes an entry out of the line (it became not ready). */
export function placeNotReady(d: Draft, entry: Entry): void {
  const rest = d.state.entries.filter((e) => e !== entry);
  entry.started = false;
  const at = rest.findIndex((e) => e.state === 'not_ready' && e.seq > entry.seq);
  rest.splice(at === -1 ? rest.length : at, 0, entry);
  d.state.entries = rest;
  d.dirty = true;
}

/**
 * Fixes the position of PRs that start testing together, as one contiguous block: right after the
 * first member if it had already started (a restart), else at the end of the started segment.
 * Batching only joins a PR when nothing between it and the first member conflicts with it, so the
 * move changes nobody's dependencies.
 */
export function markStarted(d: Draft, members: readonly Entry[]): void {
  const first = members[0];
  if (!first) return;
  const moving = new Set(first.started ? members.slice(1) : members);
  const rest = d.state.entries.filter((e) => !moving.has(e));
  const at = first.started ? rest.indexOf(first) + 1 : rest.findIndex((e) => !e.started);
  for (const e of members) e.started = true;
  rest.splice(at === -1 ? rest.length : at, 0, ...members.filter((e) => moving.has(e)));
  d.state.entries = rest;
  d.dirty = true;
}
