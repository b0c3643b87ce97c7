import fc from 'fast-check';
import {
  adaptivePlan,
  currentPlan,
  initialState,
  modelOf,
  type FailureRate,
  type QueueConfigPatch,
  type QueueState,
} from '../../../engine';
import { halvings } from '../../../engine/adaptive-batching';
import { Harness } from './harness';
import { ModelWorld } from './model-world';

const adaptive: QueueConfigPatch = {
  batch: true,
  batchingMode: 'adaptive',
  batchingMinSize: 16,
  concurrency: 4,
  bisectionConcurrency: 4,
};

const rate = (r: number): FailureRate => ({ merged: 1000 * (1 - r), culprits: 1000 * r });

function queue(config: QueueConfigPatch, failureRate: FailureRate | null): Harness {
  const q = new Harness(config);
  if (failureRate) q.state = { ...q.state, failureRate };
  return q;
}

describe('adaptive batching: the plan', () => {
  it.each<[string, number, number, number, number, number, { size: number; depth: number }]>([
    // rate, max size, max depth, bisection slots, runs per merged PR target
    ['PRs rarely break: the largest batches, all the depth', 0.02, 16, 4, 4, 0.5, { size: 16, depth: 4 }],
    ['no failures at all', 0, 16, 4, 4, 0.5, { size: 16, depth: 4 }],
    // From B = 9 at 3 deep the 4 bisection slots bound the rate (4 rounds a culprit): as fast, and
    // cheaper than 4 deep.
    ['p = 5%: the bisection slots bound the depth', 0.05, 16, 4, 4, 0.5, { size: 16, depth: 3 }],
    [
      'p = 5%, no cost limit: the same, it is the cheapest of the fastest',
      0.05,
      16,
      4,
      4,
      10,
      { size: 16, depth: 3 },
    ],
    ['p = 5%, one bisection slot: smaller batches', 0.05, 16, 4, 1, 0.5, { size: 8, depth: 2 }],
    ['p = 10%, target 0.75: shallower', 0.1, 16, 4, 4, 0.75, { size: 16, depth: 2 }],
    ['p = 10%, target 0.5 out of reach: the cheapest plan', 0.1, 16, 4, 4, 0.5, { size: 8, depth: 1 }],
    ['p = 20%: small batches, one deep', 0.2, 16, 4, 4, 0.5, { size: 4, depth: 1 }],
    ['half the PRs break: one at a time', 0.5, 16, 4, 4, 0.5, { size: 1, depth: 1 }],
    ['batches of at most 1: one PR, at the cheapest depth', 0.05, 1, 4, 4, 0.5, { size: 1, depth: 1 }],
  ])('%s', (_name, r, maxSize, maxDepth, slots, target, expected) => {
    expect(adaptivePlan(r, maxSize, maxDepth, slots, target)).toEqual(expected);
  });

  it.each([
    [1, 0],
    [2, 1],
    [3, 2],
    [8, 3],
    [9, 4],
    [16, 4],
  ])('halving a batch of %i takes %i rounds', (n, rounds) => {
    expect(halvings(n)).toBe(rounds);
  });

  // Throughput: the corrected ceiling of merge-queue-anchors §5.3 per CI duration (22.0/h, 33.4/h and
  // 12.4/h at T = 30 min). Cost: fitted to the simulator, which measured 0.577, 0.514 and 0.367
  // without a speculation threshold (bench/README.md).
  it.each<[number, number, number, number, number]>([
    [4, 4, 0.05, 11.0, 0.614],
    [8, 4, 0.05, 16.7, 0.52],
    [8, 1, 0.05, 6.22, 0.347],
  ])('models B=%i C=%i at p=%f: the corrected ceiling, a fitted cost', (b, c, p, throughput, cost) => {
    const m = modelOf(b, c, p, c);
    expect(m.throughput).toBeCloseTo(throughput, 1);
    expect(m.runsPerMergedPr).toBeCloseTo(cost, 2);
  });

  const inputs = fc.record({
    r: fc.double({ min: 0, max: 0.6, noNaN: true }),
    maxSize: fc.integer({ min: 1, max: 24 }),
    maxDepth: fc.integer({ min: 1, max: 8 }),
    slots: fc.integer({ min: 1, max: 8 }),
    target: fc.double({ min: 0.05, max: 3, noNaN: true }),
  });

  it('stays within the settings, and within the cost target whenever any plan is', () => {
    fc.assert(
      fc.property(inputs, ({ r, maxSize, maxDepth, slots, target }) => {
        const plan = adaptivePlan(r, maxSize, maxDepth, slots, target);
        expect(plan.size).toBeGreaterThanOrEqual(1);
        expect(plan.size).toBeLessThanOrEqual(maxSize);
        expect(plan.depth).toBeGreaterThanOrEqual(1);
        expect(plan.depth).toBeLessThanOrEqual(maxDepth);
        const affordable = Array.from({ length: maxSize }, (_, b) =>
          Array.from({ length: maxDepth }, (_, c) => modelOf(b + 1, c + 1, r, slots)),
        )
          .flat()
          .filter((m) => m.runsPerMergedPr <= target);
        const chosen = modelOf(plan.size, plan.depth, r, slots);
        if (affordable.length > 0) {
          expect(chosen.runsPerMergedPr).toBeLessThanOrEqual(target);
          // No affordable plan is faster (beyond rounding).
          for (const m of affordable)
            expect(m.throughput).toBeLessThanOrEqual(chosen.throughput * (1 + 1e-9));
        }
      }),
      { numRuns: 300, seed: 20261127 },
    );
  });

  it('never plans slower when the cost target is raised', () => {
    fc.assert(
      fc.property(inputs, fc.double({ min: 0, max: 2, noNaN: true }), (x, more) => {
        const speed = (target: number) => {
          const plan = adaptivePlan(x.r, x.maxSize, x.maxDepth, x.slots, target);
          return modelOf(plan.size, plan.depth, x.r, x.slots).throughput;
        };
        const low = speed(x.target);
        const high = speed(x.target + more);
        // The fallback (nothing affordable) is the cheapest plan, which any affordable one beats.
        expect(high).toBeGreaterThanOrEqual(low * (1 - 1e-9));
      }),
      { numRuns: 300, seed: 20261127 },
    );
  });
});

describe('adaptive batching: the queue', () => {
  it('tests a lone PR at once where a fixed batch of 16 waits for its batch to fill', () => {
    const q = queue(adaptive, null);
    q.submit(1);
    expect(q.batches()).toEqual([[1]]);
    const fixed = queue({ ...adaptive, batchingMode: 'fixed' }, null);
    fixed.submit(1);
    expect(fixed.batches()).toEqual([]);
  });

  it('in a burst, fills whole batches behind the first PR instead of one PR per slot', () => {
    const q = queue(adaptive, rate(0.02));
    for (let pr = 1; pr <= 40; pr += 1) q.submit(pr);
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    // The plan at 2%: batches of 16, 4 deep; only PR 1 came alone.
    expect(q.batches()).toEqual([[1], range(2, 17), range(18, 33)]);
    // The rest wait for a full batch, the lone run, or batchingMaxWaitTimeMinutes.
    q.advance(5);
    expect(q.batches()).toEqual([[1], range(2, 17), range(18, 33), range(34, 40)]);
  });

  it('starts the waiting under-full batch as soon as the under-full run in flight finishes', () => {
    const q = queue({ ...adaptive, batchingMaxWaitTimeMinutes: 60 }, rate(0.02));
    q.submit(1);
    q.submit(2);
    q.submit(3);
    expect(q.batches()).toEqual([[1]]);
    q.pass(1);
    q.mergeAll();
    expect(q.batches()).toEqual([[2, 3]]);
  });

  it('stacks only as deep as the plan: one run at a time when PRs break often', () => {
    const q = queue({ ...adaptive, batchingMinSize: 4 }, rate(0.3));
    expect(adaptivePlan(0.3, 4, 4, 4, 0.5).depth).toBe(1);
    for (let pr = 1; pr <= 12; pr += 1) q.submit(pr);
    expect(q.batches().length).toBe(1);
    const fixed = queue(
      { ...adaptive, batchingMinSize: 4, batchingMode: 'fixed', speculationThreshold: 0 },
      rate(0.3),
    );
    for (let pr = 1; pr <= 12; pr += 1) fixed.submit(pr);
    expect(fixed.batches().length).toBe(3);
  });

  it('measures the failure rate even without a speculation threshold', () => {
    const q = queue({ ...adaptive, speculationThreshold: 0 }, null);
    q.submit(1);
    q.pass(1);
    q.mergeAll();
    expect(q.state.failureRate).toBeDefined();
    const fixed = queue({ ...adaptive, batchingMode: 'fixed', speculationThreshold: 0 }, null);
    fixed.submit(1);
    fixed.advance(5);
    fixed.pass(1);
    fixed.mergeAll();
    expect(fixed.state.failureRate).toBeUndefined();
  });

  it('shows the plan it schedules by (getQueue): the size and depth it stacks, at the measured rate', () => {
    const q = queue({ ...adaptive, batchingMinSize: 4 }, rate(0.3));
    const plan = currentPlan(q.state)!;
    expect(plan).toEqual({
      ...adaptivePlan(0.3, 4, 4, 4, 0.5),
      failureRate: expect.closeTo(0.3, 9) as number,
    });
    for (let pr = 1; pr <= 12; pr += 1) q.submit(pr);
    expect(q.batches().length).toBe(plan.depth);
    expect(q.batches()[0]!.length).toBe(plan.size);
    expect(currentPlan(queue({ ...adaptive, batchingMode: 'fixed' }, rate(0.3)).state)).toBeNull();
    expect(currentPlan(initialState({ batch: false, batchingMode: 'adaptive' }))).toBeNull();
  });

  it('keeps the state of a queue that never set the mode exactly as it was', () => {
    expect(initialState({ batch: true }).config).not.toHaveProperty('batchingMode');
    expect(initialState({ batch: true }).config).not.toHaveProperty('batchingRunsPerPrTarget');
    expect(initialState({ batchingMode: 'adaptive', batchingRunsPerPrTarget: 0 }).config).toMatchObject({
      batchingMode: 'adaptive',
      batchingRunsPerPrTarget: 0.05,
    });
  });
});

/** Random stories: a queue of up to 9 PRs, runs passing and failing, merges, ticks, mode switches. */
type Step =
  | { kind: 'submit'; pr: number }
  | { kind: 'finish'; pick: number; passed: boolean }
  | { kind: 'merge' }
  | { kind: 'tick'; minutes: number }
  | { kind: 'mode'; mode: 'fixed' | 'adaptive' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('submit' as const), pr: fc.integer({ min: 1, max: 9 }) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), passed: fc.boolean() }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('merge' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), minutes: fc.integer({ min: 1, max: 30 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mode' as const),
      mode: fc.constantFrom('fixed' as const, 'adaptive' as const),
    }),
  },
);

function play(world: ModelWorld, s: Step): void {
  const live = world.liveRuns();
  switch (s.kind) {
    case 'submit':
      return world.submit(s.pr, 100, false, true, false);
    case 'finish': {
      const runId = live[s.pick % Math.max(1, live.length)];
      if (!runId) return;
      world.runPassed(runId, s.passed);
      return world.send({ type: 'testRunFinished', runId, outcome: s.passed ? 'passed' : 'failed' });
    }
    case 'merge':
      return world.completeMerge('ok');
    case 'tick':
      world.now += s.minutes * 60_000;
      return world.send({ type: 'tick' });
    case 'mode':
      return world.send({ type: 'configUpdated', patch: { batchingMode: s.mode } });
  }
}

function mainRunsInFlight(state: QueueState): number {
  return state.groups.filter((g) => g.status === 'testing' && !g.bisection).length;
}

describe('adaptive batching: engine invariants over random stories', () => {
  const config = fc.record({
    batch: fc.constant(true),
    batchingMode: fc.constant('adaptive' as const),
    batchingMinSize: fc.integer({ min: 1, max: 5 }),
    concurrency: fc.integer({ min: 1, max: 4 }),
    bisectionConcurrency: fc.integer({ min: 1, max: 3 }),
    batchingRunsPerPrTarget: fc.constantFrom(0.3, 0.5, 2),
    optimizationMode: fc.constantFrom('off' as const, 'bisection_skip_redundant_tests' as const),
  });

  it('hold after every event, runs stay within the settings, and every PR ends', () => {
    fc.assert(
      fc.property(config, fc.array(step, { minLength: 5, maxLength: 60 }), (patch, steps) => {
        const world = new ModelWorld(patch);
        // A rate of 10% weighing 20 PRs: the plan moves as outcomes arrive.
        world.state = { ...world.state, failureRate: { merged: 18, culprits: 2 } };
        for (const s of steps) {
          play(world, s);
          expect(world.violations).toEqual([]);
          expect(mainRunsInFlight(world.state)).toBeLessThanOrEqual(patch.concurrency);
          for (const g of world.state.groups)
            if (!g.bisection) expect(g.prs.length).toBeLessThanOrEqual(patch.batchingMinSize);
        }
        // Drain: every run passes, every merge lands.
        for (let i = 0; i < 500 && world.state.entries.length > 0; i += 1) {
          if (world.merge) world.completeMerge('ok');
          else if (world.liveRuns().length > 0) {
            for (const runId of world.liveRuns()) {
              world.runPassed(runId, true);
              world.send({ type: 'testRunFinished', runId, outcome: 'passed' });
            }
          } else {
            world.now += 24 * 60 * 60_000;
            world.send({ type: 'tick' });
          }
        }
        expect(world.violations).toEqual([]);
        expect(world.state.entries).toEqual([]);
      }),
      { numRuns: 300, seed: 20261127 },
    );
  });

  it('a fixed queue decides exactly as before the setting existed', () => {
    // `batchingMode: 'fixed'` set explicitly against never set: the same commands, the same state
    // but for the setting itself.
    fc.assert(
      fc.property(fc.array(step, { minLength: 5, maxLength: 40 }), (steps) => {
        const base: QueueConfigPatch = { batch: true, batchingMinSize: 3, concurrency: 3 };
        const a = new ModelWorld(base);
        const b = new ModelWorld({ ...base, batchingMode: 'fixed' });
        for (const s of steps.filter((x) => x.kind !== 'mode')) {
          play(a, s);
          play(b, s);
        }
        const { batchingMode: _set, ...config } = b.state.config;
        expect({ ...b.state, config }).toEqual(a.state);
      }),
      { numRuns: 200, seed: 20261127 },
    );
  });
});
