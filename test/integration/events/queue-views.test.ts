/**
 * The queue views of the read projection as rows (events/store/queue-views.ts, migration 0024) against
 * the real PostgreSQL: a chain of deltas reads back as exactly the queue's snapshots; duplicates, late
 * and out-of-order deliveries and concurrent writers neither lose nor bring back an entry; a delta
 * that does not fit the stored view is refused whole; a change writes only the rows it changed.
 */
import type { Pool } from 'pg';
import {
  viewDeltaOf,
  type AckedView,
  type QueuedPullRequest,
  type QueueKey,
  type QueueSnapshot,
  type QueueViewDelta,
} from '../../../contract';
import { queuedEntry } from '../../support/queued-entry';
import { createQueueViewStore, type QueueViewStore } from '../../../events/store/queue-views';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let orgId: string;
let store: QueueViewStore;
let queues = 0;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('queue_views'));
  const keys = createApiKeyStore(pool);
  orgId = (await keys.authenticate((await keys.create('acme')).key))!.id;
  store = createQueueViewStore(pool);
});
afterAll(() => pool.end());

const newQueue = (): QueueKey => ({
  organisationId: orgId,
  repo: { host: 'github.com', owner: 'acme', name: `app-${++queues}` },
  targetBranch: 'main',
});

const entry = queuedEntry;

const settings = {
  state: 'running',
  branch: 'main',
  mode: 'single',
  concurrency: 4,
  requiredStatuses: null,
} as unknown as QueueSnapshot['settings'];

const snapshot = (revision: number, entries: QueuedPullRequest[], generation = 'g1'): QueueSnapshot => ({
  settings: { ...settings, concurrency: revision },
  enqueued: entries,
  inQueue: entries.length + 1,
  testRunsInProgress: revision % 2 === 0 ? [`run-${revision}`] : [],
  generation,
  revision,
  deleted: false,
});

const read = async (key: QueueKey) => (await store.get(key))?.snapshot;

/** The deltas a sender acknowledging each in turn sends for `views` (revisions 1, 2, …). */
function deltasOf(views: QueuedPullRequest[][]): { deltas: QueueViewDelta[]; snapshots: QueueSnapshot[] } {
  let ack: AckedView | null = null;
  const deltas: QueueViewDelta[] = [];
  const snapshots = views.map((v, i) => snapshot(i + 1, v));
  for (const s of snapshots) {
    const { delta, view } = viewDeltaOf(s, ack);
    deltas.push(delta);
    ack = view;
  }
  return { deltas, snapshots };
}

/** A deterministic walk of views: PRs join at the end or by priority, leave at the head, move, change. */
function walk(steps: number, seed: number): QueuedPullRequest[][] {
  let x = seed;
  const rnd = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x % n;
  };
  let view: QueuedPullRequest[] = [];
  let next = 1;
  const out: QueuedPullRequest[][] = [];
  for (let s = 0; s < steps; s++) {
    view = [...view];
    for (let k = rnd(3) + 1; k > 0; k--) {
      const op = rnd(6);
      if (op <= 1) view.push(entry(next++));
      else if (op === 2 && view.length > 0) view.shift();
      else if (op === 3 && view.length > 0) view.splice(rnd(view.length + 1), 0, entry(next++));
      else if (op === 4 && view.length > 1)
        view.splice(rnd(view.length), 0, ...view.splice(rnd(view.length), 1));
      else if (view.length > 0) {
        const i = rnd(view.length);
        view[i] = entry(view[i]!.pr, `t${s}`, 'testing');
      }
    }
    out.push(view);
  }
  return out;
}

test('a whole snapshot reads back as it was stored; an older one of its generation changes nothing', async () => {
  const key = newQueue();
  expect(await store.get(key)).toBeNull();
  const s = snapshot(2, [entry(1), entry(2), entry(3)]);
  expect(await store.put(key, s)).toBe(true);
  expect(await read(key)).toEqual(s);
  expect(await store.version(key)).toEqual({ generation: 'g1', revision: 2, deleted: false });
  expect(await store.version(newQueue())).toBeNull();
  expect(await store.put(key, snapshot(1, [entry(9)]))).toBe(false);
  expect(await store.put(key, snapshot(2, [entry(9)]))).toBe(false);
  expect(await read(key)).toEqual(s);
  // Without runs in progress (older workers): the field stays absent.
  const { testRunsInProgress: _, ...older } = snapshot(3, [entry(4)]);
  await store.put(key, older);
  expect(await read(key)).toEqual(older);
});

test('a chain of deltas reads back as each snapshot, and writes only the rows it names', async () => {
  const key = newQueue();
  const { deltas, snapshots } = deltasOf(walk(60, 7));
  for (const [i, delta] of deltas.entries()) {
    expect(await store.apply(key, delta)).toBe('stored');
    expect(await read(key)).toEqual(snapshots[i]);
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM queue_view_entries WHERE name = $1 AND revision = $2`,
      [key.repo.name, delta.revision],
    );
    expect(Number(rows[0]!.n)).toBe(delta.place.length);
  }
});

test('duplicates and late deliveries are stale; a delta ahead of its base is refused whole', async () => {
  const key = newQueue();
  const { deltas, snapshots } = deltasOf([
    [entry(1), entry(2), entry(3)],
    [entry(2), entry(3), entry(4)],
    [entry(3), entry(4)],
  ]);
  const [d1, d2, d3] = deltas as [QueueViewDelta, QueueViewDelta, QueueViewDelta];
  expect(await store.apply(key, d1)).toBe('stored');
  // d3 arrives before d2 (its base): refused, nothing written.
  expect(await store.apply(key, d3)).toBe('diverged');
  expect(await read(key)).toEqual(snapshots[0]);
  expect(await store.apply(key, d2)).toBe('stored');
  expect(await store.apply(key, d2)).toBe('stale');
  expect(await store.apply(key, d3)).toBe('stored');
  // A late retry of d1 and d2 (they held PRs 1 and 2): nothing comes back.
  expect(await store.apply(key, d1)).toBe('stale');
  expect(await store.apply(key, d2)).toBe('stale');
  expect(await read(key)).toEqual(snapshots[2]);
});

test('concurrent writers of one queue: every delivery in any order, twice, at once, ends on the last view', async () => {
  const key = newQueue();
  const { deltas, snapshots } = deltasOf(walk(40, 11));
  // The sender's order (each delta after the previous was stored), each with a duplicate racing it and
  // a late copy of an earlier one; an API write of the snapshot it read now and then.
  for (const [i, delta] of deltas.entries()) {
    const late = deltas[Math.max(0, i - 3)]!;
    const [a, b, c, put] = await Promise.all([
      store.apply(key, delta),
      store.apply(key, delta),
      store.apply(key, late),
      ...(i % 7 === 3 ? [store.put(key, snapshots[i]!)] : []),
    ]);
    // Exactly one write of revision i + 1 got in; every other one changed nothing.
    const wrote = [a, b, c].filter((o) => o === 'stored').length + (put === true ? 1 : 0);
    expect(wrote).toBe(1);
    expect([a, b, c].every((o) => o === 'stored' || o === 'stale')).toBe(true);
    expect(await read(key)).toEqual(snapshots[i]);
  }
});

test('a row another writer changed since the base, not named by the delta, refuses it; a whole view fixes it', async () => {
  const key = newQueue();
  let ack: AckedView | null = null;
  const send = (s: QueueSnapshot) => {
    const { delta, view } = viewDeltaOf(s, ack);
    ack = view;
    return delta;
  };
  expect(await store.apply(key, send(snapshot(1, [entry(1), entry(2), entry(3)])))).toBe('stored');
  // The API stores revision 2 (PR 3 moved ahead of 2); by revision 3 it is back where it was.
  await store.put(key, snapshot(2, [entry(1), entry(3), entry(2)]));
  const back = snapshot(3, [entry(1), entry(2), entry(3), entry(4)]);
  expect(await store.apply(key, send(back))).toBe('diverged');
  expect(await read(key)).toEqual(snapshot(2, [entry(1), entry(3), entry(2)]));
  expect(await store.put(key, back)).toBe(true);
  expect(await read(key)).toEqual(back);
  // A delta on a base the API write did not disturb applies over it.
  await store.put(key, snapshot(4, [entry(1), entry(2), entry(3), entry(4), entry(5)]));
  const after = snapshot(5, [entry(1), entry(2), entry(3), entry(4), entry(5), entry(6)]);
  expect(await store.apply(key, send(after))).toBe('stored');
  expect(await read(key)).toEqual(after);
});

test('many PRs placed at one spot keep their order (ranks renumbered when they run out)', async () => {
  const key = newQueue();
  let view = [entry(1), entry(1_000)];
  const chain: QueuedPullRequest[][] = [view];
  // Each new PR goes right after PR 1, ahead of the ones before it: the gap there halves every time.
  for (let pr = 2; pr < 120; pr++) {
    view = [view[0]!, entry(pr), ...view.slice(1)];
    chain.push(view);
  }
  const { deltas, snapshots } = deltasOf(chain);
  for (const d of deltas) expect(await store.apply(key, d)).toBe('stored');
  expect(await read(key)).toEqual(snapshots.at(-1));
});

test('a new generation replaces the view; a deleted one takes no later write of its generation', async () => {
  const key = newQueue();
  await store.put(key, snapshot(5, [entry(1), entry(2)]));
  const next = snapshot(1, [entry(3)], 'g2');
  expect(await store.apply(key, viewDeltaOf(next, null).delta)).toBe('stored');
  expect(await read(key)).toEqual(next);
  await store.markDeleted(key);
  expect((await store.get(key))?.deleted).toBe(true);
  expect(await store.put(key, snapshot(9, [entry(4)], 'g2'))).toBe(false);
  expect(await store.apply(key, viewDeltaOf(snapshot(10, [], 'g2'), null).delta)).toBe('stale');
});
