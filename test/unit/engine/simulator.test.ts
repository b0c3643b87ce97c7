import {
  dorfmanRunsPerPr,
  entropyFloor,
  optimisticBound,
  pipelinedBatchCeiling,
  pipelinedBatchUpperBound,
  serialBatchBound,
  serialBound,
} from '../../../bench/simulate/bounds';
import { simulate } from '../../../bench/simulate/world';

describe('simulator', () => {
  it.each<[string, number, number]>([
    ['serial, T = 30 min', serialBound(30), 2],
    ['optimistic C=4 p=2%', optimisticBound(4, 0.02, 30), 7.76],
    ['optimistic C=10 p=5%', optimisticBound(10, 0.05, 30), 16.05],
    ['optimistic C=30 p=10%', optimisticBound(30, 0.1, 30), 19.15],
    ['batches of 4 serial, p=5%', serialBatchBound(4, 0.05, 30), 4.59],
    ['batches of 8 serial, p=5%', serialBatchBound(8, 0.05, 30), 5.3],
    ['pipelined B=8 C=4 p=5%, corrected ceiling', pipelinedBatchCeiling(8, 4, 0.05, 30), 33.4],
    ['pipelined B=4 C=4 p=5%, corrected ceiling', pipelinedBatchCeiling(4, 4, 0.05, 30), 22.0],
    ['pipelined B=8 C=1 p=5%, corrected ceiling', pipelinedBatchCeiling(8, 1, 0.05, 30), 12.4],
    ['pipelined B=4 C=1 p=5%, corrected ceiling', pipelinedBatchCeiling(4, 1, 0.05, 30), 7.0],
    ['pipelined B=8 C=4 p=5%, old upper bound', pipelinedBatchUpperBound(8, 4, 0.05, 30), 38.3],
    ['pipelined B=4 C=4 p=5%, old upper bound', pipelinedBatchUpperBound(4, 4, 0.05, 30), 24.15],
    ['Dorfman B=5 p=5%', dorfmanRunsPerPr(5, 0.05), 0.426],
    ['entropy floor p=5%', entropyFloor(0.05), 0.286],
  ])('bound %s matches merge-queue-anchors §5', (_name, value, expected) => {
    expect(value).toBeCloseTo(expected, 1);
  });

  it('the corrected ceiling lies below the old upper bound and meets it as p goes to 0', () => {
    for (const [b, c, p] of [
      [8, 4, 0.05],
      [4, 4, 0.05],
      [8, 10, 0.02],
      [4, 2, 0.1],
    ] as const) {
      expect(pipelinedBatchCeiling(b, c, p, 30)).toBeLessThan(pipelinedBatchUpperBound(b, c, p, 30));
    }
    expect(pipelinedBatchCeiling(8, 4, 1e-9, 30) / pipelinedBatchUpperBound(8, 4, 1e-9, 30)).toBeCloseTo(
      1,
      6,
    );
    expect(pipelinedBatchCeiling(8, 4, 0, 30)).toBe(64);
  });

  it('drives the real engine to within a few percent of the analytic bound (smoke run)', () => {
    const out = simulate({
      config: { concurrency: 4 },
      p: 0.05,
      f: 0,
      ciMinutes: 30,
      ciSigma: 0,
      lanes: 1,
      arrivals: { kind: 'backlog', size: 30 },
      prs: 400,
      warmup: 40,
      seed: 11,
    });
    expect(out.resolved).toBe(360);
    expect(out.resolvedPerHour / optimisticBound(4, 0.05, 30)).toBeGreaterThan(0.9);
    expect(out.badMerged).toBe(0);
    expect(out.goodEjected).toBe(0);
    expect([out.finalEntries, out.finalGroups]).toEqual([0, 0]);
  });

  it('is reproducible from its seed', () => {
    const scenario = {
      config: { concurrency: 2, batch: true, batchingMinSize: 3 },
      p: 0.1,
      f: 0.05,
      ciMinutes: 20,
      ciSigma: 0.3,
      lanes: 1,
      arrivals: { kind: 'poisson' as const, perHour: 5 },
      prs: 150,
      warmup: 10,
      seed: 3,
    };
    const a = simulate(scenario);
    const b = simulate(scenario);
    expect({ ...a, decideMs: 0 }).toEqual({ ...b, decideMs: 0 });
  });

  it('plays a trace: one PR at each time given, the last resolving after the last arrival', () => {
    // Issue 25's bursty world in small: two quiet PRs, then 30 within 10 minutes.
    const minutes = [10, 200, ...Array.from({ length: 30 }, (_, i) => 400 + i / 3)];
    const out = simulate({
      config: { batch: true, batchingMode: 'adaptive', batchingMinSize: 8, concurrency: 2 },
      p: 0.05,
      f: 0,
      ciMinutes: 30,
      ciSigma: 0,
      lanes: 1,
      arrivals: { kind: 'trace', minutes },
      prs: minutes.length,
      warmup: 0,
      seed: 5,
    });
    expect(out.resolved).toBe(32);
    expect(out.badMerged).toBe(0);
    // The quiet PRs are tested at once, alone: merged one CI duration after they came.
    expect(out.timeToMerge.slice(0, 2)).toEqual([30, 30]);
    expect(out.lastResolutionMinute).toBeGreaterThan(430);
    expect([out.finalEntries, out.finalGroups]).toEqual([0, 0]);
  });
});
