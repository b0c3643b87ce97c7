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
 * Invariant: `entries` = started ++ never-started pending (sorted) ++ not_ready (by seq).
 */
import { type Draft, inMerge, note } from './draft';
import { type Entry } from './model';

export const URGENT = 0;

/** Priority first, then submission order. */
export function ranksBefore(a: Entry, b: Entry): boolean {
  return a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq;
}

/** The PRs in the queue (admitted), in line order. */
export function line(d: Draft): Entry[] {
  return d.state.entries.filter((e) => e.state !== 'not_ready');
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
