/**
 * Queue view deltas (contract/queue-view-delta.ts): applied on the view they were computed against they
 * give exactly the new view, and they name the fewest entries (a PR merged at the head or one added at
 * the end changes one row, not the queue).
 */
import fc from 'fast-check';
import {
  keptInPlace,
  viewDeltaOf,
  type AckedView,
  type QueuedPullRequest,
  type QueueSnapshot,
  type QueueViewDelta,
} from '../../../contract';
import { queuedEntry } from '../../support/queued-entry';

const entry = queuedEntry;

const settings = { state: 'running' } as unknown as QueueSnapshot['settings'];
const snapshot = (revision: number, entries: QueuedPullRequest[]): QueueSnapshot => ({
  settings,
  enqueued: entries,
  inQueue: entries.length,
  generation: 'g1',
  revision,
});

/** The store's rule on a list: drop removed and placed, then insert each placed after the PR it follows. */
function applyTo(view: QueuedPullRequest[], delta: QueueViewDelta): QueuedPullRequest[] {
  const leaving = new Set([...delta.removed, ...delta.place.map((p) => p.entry.pr)]);
  const line = delta.base === null ? [] : view.filter((e) => !leaving.has(e.pr));
  for (const { entry: e, after } of delta.place) {
    const i = after === null ? 0 : line.findIndex((x) => x.pr === after) + 1;
    if (after !== null && i === 0) throw new Error(`PR ${after} is not in the view`);
    line.splice(i, 0, e);
  }
  return line;
}

const acked = (entries: QueuedPullRequest[], revision = 1): AckedView =>
  viewDeltaOf(snapshot(revision, entries), null).view;

test('a PR merged at the head, or added at the end, names one entry', () => {
  const before = [1, 2, 3, 4].map((n) => entry(n));
  const merged = viewDeltaOf(snapshot(2, before.slice(1)), acked(before)).delta;
  expect(merged).toMatchObject({ base: 1, revision: 2, place: [], removed: [1], count: 3 });
  const added = viewDeltaOf(snapshot(2, [...before, entry(5)]), acked(before)).delta;
  expect(added.place).toEqual([{ entry: entry(5), after: 4 }]);
  expect(added.removed).toEqual([]);
});

test('a changed entry is placed again after its neighbour; a moved one is the only one named', () => {
  const before = [1, 2, 3, 4].map((n) => entry(n));
  const renamed = viewDeltaOf(
    snapshot(2, [entry(1), entry(2, 'new title'), entry(3), entry(4)]),
    acked(before),
  );
  expect(renamed.delta.place).toEqual([{ entry: entry(2, 'new title'), after: 1 }]);
  // PR 4 skips the line: it alone moves, to the front.
  const urgent = viewDeltaOf(snapshot(2, [entry(4), entry(1), entry(2), entry(3)]), acked(before));
  expect(urgent.delta.place).toEqual([{ entry: entry(4), after: null }]);
});

test('without an acknowledged view of its generation a delta is the whole view', () => {
  const entries = [entry(1), entry(2)];
  const other: AckedView = { ...acked(entries), generation: 'g0' };
  for (const base of [null, other]) {
    const { delta } = viewDeltaOf(snapshot(3, entries), base);
    expect(delta).toMatchObject({ base: null, removed: [], count: 2 });
    expect(applyTo([], delta)).toEqual(entries);
  }
});

test('the whole-queue part travels with every delta', () => {
  const s = { ...snapshot(2, []), inQueue: 3, testRunsInProgress: ['r1'], deleted: true };
  expect(viewDeltaOf(s, acked([])).delta.header).toEqual({
    settings,
    inQueue: 3,
    testRunsInProgress: ['r1'],
    deleted: true,
  });
});

test('keptInPlace keeps a longest run still in order', () => {
  expect([...keptInPlace([1, 2, 3, 4, 5], [2, 3, 1, 4, 5], () => true)].sort()).toEqual([2, 3, 4, 5]);
  expect([...keptInPlace([1, 2, 3], [3, 2, 1], () => true)]).toHaveLength(1);
  expect([...keptInPlace([1, 2, 3], [1, 2, 3], (k) => k !== 2)].sort()).toEqual([1, 3]);
  expect(keptInPlace([], [1, 2], () => true).size).toBe(0);
});

/** A view: distinct PRs from a small range (so views share many), some with another title. */
const views = fc
  .uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 25 })
  .chain((prs) =>
    fc.tuple(fc.constant(prs), fc.array(fc.boolean(), { minLength: prs.length, maxLength: prs.length })),
  )
  .map(([prs, renamed]) => prs.map((pr, i) => entry(pr, renamed[i] ? `renamed ${pr}` : `PR ${pr}`)));

test('property: a chain of deltas, each applied on the view before it, gives every view exactly', () => {
  fc.assert(
    fc.property(fc.array(views, { minLength: 1, maxLength: 8 }), (chain) => {
      let stored: QueuedPullRequest[] = [];
      let ack: AckedView | null = null;
      chain.forEach((next, i) => {
        const { delta, view } = viewDeltaOf(snapshot(i + 1, next), ack);
        stored = applyTo(stored, delta);
        expect(stored).toEqual(next);
        expect(delta.count).toBe(next.length);
        // The fewest: at most one entry per PR not kept in place, and none when nothing changed.
        if (ack && JSON.stringify(ack.order) === JSON.stringify(next.map((e) => e.pr)))
          expect(delta.place.every((p) => ack!.json.get(p.entry.pr) !== JSON.stringify(p.entry))).toBe(true);
        ack = view;
      });
    }),
  );
});
