/** The queue's budget on held impacted targets (workflows/queue/targets-budget.ts). */
import { initialState, type QueueState } from '../../../engine';
import { TARGETS_BUDGET_BYTES, withinTargetsBudget } from '../../../workflows/queue/targets-budget';

/** Targets of `count` labels, each `length` characters. */
const labels = (count: number, length = 250) =>
  Array.from({ length: count }, (_, i) => `//${String(i).padStart(length - 2, 'x')}`);

function holding(targetsPerPr: string[][]): QueueState {
  const state = initialState();
  return {
    ...state,
    entries: targetsPerPr.map((targets, i) => ({
      ...(state.entries[0] ?? ({} as QueueState['entries'][number])),
      pr: i + 1,
      targets: { sha: 'a'.repeat(40), targets },
    })),
  };
}

test.each([
  ['a small list on an empty queue', holding([]), [], labels(10), 'kept'],
  ['ALL stays ALL', holding([]), [], 'ALL' as const, 'kept'],
  ['one maximal request on an empty queue (1,000 x 256)', holding([]), [], labels(1_000, 256), 'kept'],
  [
    'a maximal request behind a queue already near the budget',
    holding([labels(1_000, 256)]),
    [],
    labels(1_000, 256),
    'ALL',
  ],
  [
    'early targets of other PRs count',
    holding([]),
    [{ pr: 9, targets: labels(1_000, 256) }],
    labels(1_000, 256),
    'ALL',
  ],
  [
    'the PR’s own earlier targets do not count (PR 2 replaces its maximal list)',
    holding([[], labels(1_000, 256)]),
    [{ pr: 2, targets: labels(1_000, 256) }],
    labels(1_000, 256),
    'kept',
  ],
])('%s', (_name, engine, early, targets, expected) => {
  const pr = 2;
  const got = withinTargetsBudget(engine, early, pr, targets);
  expect(got === targets ? 'kept' : got).toBe(expected);
});

test('a queue of many PRs that each send the maximum never holds much more than the budget', () => {
  let engine = holding([]);
  const held: string[][] = [];
  for (let pr = 1; pr <= 50; pr++) {
    const got = withinTargetsBudget(engine, [], pr, labels(1_000, 256));
    if (got !== 'ALL') held.push(got);
    engine = holding(held);
  }
  expect(Buffer.byteLength(JSON.stringify(held.flat()))).toBeLessThanOrEqual(TARGETS_BUDGET_BYTES);
  expect(held.length).toBeGreaterThanOrEqual(1);
});

// Issue 24: counted in UTF-16 units, targets of characters JSON escapes carried six times the budget.
test.each([
  ['control characters (6 JSON bytes each)', '\u0001'],
  ['characters outside the BMP (4 bytes, 2 units)', '\u{1F600}'],
  ['quotes (2 bytes each)', '"'],
  ['CJK characters (3 bytes each)', '\u4e2d'],
])('the budget holds in stored bytes for targets of %s', (_what, char) => {
  let engine = holding([]);
  const held: string[][] = [];
  const targets = Array.from({ length: 1_000 }, (_, i) => `${i}${char.repeat(60)}`);
  for (let pr = 1; pr <= 50; pr++) {
    const got = withinTargetsBudget(engine, [], pr, targets);
    if (got !== 'ALL') held.push(got);
    engine = holding(held);
  }
  expect(held.length).toBeGreaterThanOrEqual(1);
  expect(Buffer.byteLength(JSON.stringify(held.flat()))).toBeLessThanOrEqual(TARGETS_BUDGET_BYTES);
});
