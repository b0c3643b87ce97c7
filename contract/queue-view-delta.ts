/**
 * Queue view deltas: how the read projection's queue view (ADR 0016, stored as one row per enqueued PR,
 * events/store/queue-views.ts) follows the queue without asking its workflow. The queue workflow sends
 * with each event-log append what changed in its getQueue snapshot since the last view the projection
 * acknowledged; the projection applies it under its queue's lock. Pure, so the workflow, the store and
 * the tests share it.
 *
 * Rules and invariants:
 * - A delta names its base: the revision of the view it was computed against (null: a whole view, every
 *   entry listed, the others removed). Applied on exactly that base it gives exactly the snapshot.
 * - It lists the entries that are new, changed, or moved, each with the PR it follows (null: first),
 *   in the snapshot's order, and the PRs that left. "Moved" is the fewest: the entries kept in place
 *   are a longest run of the old order that is still in order (a PR merged at the head moves nobody).
 * - The whole-queue part (settings, counts, runs in progress, deleted) is always sent: it is small.
 */
import type { QueuedPullRequest, QueueSettingsSnapshot, QueueSnapshot } from './queue-messages';

/** What a view says of the whole queue (everything but its entries). */
export interface QueueViewHeader {
  settings: QueueSettingsSnapshot;
  inQueue: number;
  testRunsInProgress?: string[];
  deleted: boolean;
}

export interface QueueViewPlacement {
  entry: QueuedPullRequest;
  /** The PR it follows in the view; null: it is first. */
  after: number | null;
}

export interface QueueViewDelta {
  generation: string;
  revision: number;
  /** The revision this delta was computed against; null: a whole view. */
  base: number | null;
  header: QueueViewHeader;
  /** New, changed and moved entries, in view order. */
  place: QueueViewPlacement[];
  /** PRs that left the view. */
  removed: number[];
  /** How many entries the view holds after the delta (the store checks it). */
  count: number;
}

/** The view the sender knows the projection holds (kept in workflow memory, never carried). */
export interface AckedView {
  generation: string;
  revision: number;
  order: number[];
  /** Each entry as JSON, to tell a changed entry from an unchanged one. */
  json: Map<number, string>;
}

/** The snapshot's version as getQueue answers it (absent from older workers: ''/0). */
export function versionOfSnapshot(snapshot: QueueSnapshot): { generation: string; revision: number } {
  return { generation: snapshot.generation ?? '', revision: snapshot.revision ?? 0 };
}

export function headerOf(snapshot: QueueSnapshot): QueueViewHeader {
  return {
    settings: snapshot.settings,
    inQueue: snapshot.inQueue,
    ...(snapshot.testRunsInProgress ? { testRunsInProgress: snapshot.testRunsInProgress } : {}),
    deleted: snapshot.deleted === true,
  };
}

/**
 * Which of `after` (keys in their new order) keep their place from `before` (keys in their old order):
 * a longest subsequence of `after` whose old positions increase, among the keys `unchanged` accepts.
 * O(n log n). Every other key of `after` must be (re)placed.
 */
export function keptInPlace<K>(
  before: readonly K[],
  after: readonly K[],
  unchanged: (key: K) => boolean,
): Set<K> {
  const at = new Map<K, number>();
  before.forEach((k, i) => at.set(k, i));
  const keys: K[] = [];
  const positions: number[] = [];
  for (const k of after) {
    const p = at.get(k);
    if (p !== undefined && unchanged(k)) {
      keys.push(k);
      positions.push(p);
    }
  }
  // Patience sorting: tails[l] is the index (into positions) of the smallest tail of a run of l + 1.
  const tails: number[] = [];
  const previous: number[] = new Array<number>(positions.length).fill(-1);
  positions.forEach((p, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (positions[tails[mid]!]! < p) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const kept = new Set<K>();
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) kept.add(keys[i]!);
  return kept;
}

/** The placements that turn a view ordered `before` into `entries` (the new order), keeping `kept`. */
export function placementsOf(
  entries: readonly QueuedPullRequest[],
  kept: ReadonlySet<number>,
): QueueViewPlacement[] {
  const place: QueueViewPlacement[] = [];
  entries.forEach((entry, i) => {
    if (!kept.has(entry.pr)) place.push({ entry, after: i === 0 ? null : entries[i - 1]!.pr });
  });
  return place;
}

/**
 * The delta from `acked` (null: nothing acknowledged, or another generation) to `snapshot`, and the
 * view the projection holds once it is applied.
 */
export function viewDeltaOf(
  snapshot: QueueSnapshot,
  acked: AckedView | null,
): { delta: QueueViewDelta; view: AckedView } {
  const { generation, revision } = versionOfSnapshot(snapshot);
  const entries = snapshot.enqueued;
  const order = entries.map((e) => e.pr);
  const json = new Map(entries.map((e) => [e.pr, JSON.stringify(e)]));
  const base = acked && acked.generation === generation ? acked : null;
  const kept = base
    ? keptInPlace(base.order, order, (pr) => base.json.get(pr) === json.get(pr))
    : new Set<number>();
  const inView = new Set(order);
  return {
    delta: {
      generation,
      revision,
      base: base ? base.revision : null,
      header: headerOf(snapshot),
      place: placementsOf(entries, kept),
      removed: base ? base.order.filter((pr) => !inView.has(pr)) : [],
      count: entries.length,
    },
    view: { generation, revision, order, json },
  };
}
