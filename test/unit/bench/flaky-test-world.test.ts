import { seededRng } from '../../../bench/simulate/rng';
import {
  flakeProbabilities,
  testName,
  TestWorld,
  type TestWorldSpec,
} from '../../../bench/simulate/test-world';
import { simulate, type Scenario } from '../../../bench/simulate/world';

const spec: TestWorldSpec = { tests: 2000, flaky: 5, maxBrokenPerBadPr: 3, knownAtStart: 0, report: true };

describe('the flaky-test world (bench/simulate/test-world.ts)', () => {
  it.each([0, 0.02, 0.05, 0.1])('fails a whole-suite run spuriously with the per-run f = %p', (f) => {
    const q = flakeProbabilities(f, 5);
    expect(1 - q.reduce((pass, qi) => pass * (1 - qi), 1)).toBeCloseTo(f, 12);
    // The heaviest flaky test flakes most, each at most f.
    for (let i = 1; i < q.length; i += 1) expect(q[i]!).toBeLessThanOrEqual(q[i - 1]!);
    expect(Math.max(...q)).toBeLessThanOrEqual(f);
  });

  it('judges a flaky test known only after its first flake, and runs only the selected tests', () => {
    const world = new TestWorld({ ...spec, flaky: 1 }, 1, seededRng(1));
    const first = world.run(new Set(), undefined);
    expect(first.tests).toEqual([{ name: testName(0), status: 'failed', quarantined: false }]);
    const second = world.run(new Set([7]), undefined);
    expect(second.tests).toEqual([
      { name: testName(7), status: 'failed', quarantined: false },
      { name: testName(0), status: 'failed', quarantined: false, flaky: true },
    ]);
    // A retry of the flaky test alone does not see what a bad PR broke elsewhere.
    expect(world.run(new Set([7]), [testName(0)]).tests?.map((t) => t.name)).toEqual([testName(0)]);
    expect(world.run(new Set([7]), [testName(3)])).toEqual({ failed: false, tests: [] });
    expect(world.knownFlaky()).toBe(1);
  });

  it('reports no failed tests for today’s engine, and at f = 0 reproduces the per-run world exactly', () => {
    const base: Scenario = {
      config: { concurrency: 10, pendingFailureDepth: 1, canOptimisticallyMerge: true },
      p: 0.05,
      f: 0,
      ciMinutes: 30,
      ciSigma: 0,
      lanes: 1,
      arrivals: { kind: 'backlog', size: 20 },
      prs: 120,
      warmup: 12,
      seed: 5,
    };
    const perRun = simulate(base);
    const perTest = simulate({ ...base, tests: spec });
    expect(perTest.runsStarted).toBe(perRun.runsStarted);
    expect(perTest.timeToMerge).toEqual(perRun.timeToMerge);
    expect(new TestWorld({ ...spec, report: false }, 1, seededRng(2)).run(new Set([1]), undefined)).toEqual({
      failed: true,
      tests: undefined,
    });
  });
});
