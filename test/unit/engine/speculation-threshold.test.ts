import { type FailureRate, type QueueConfigPatch } from '../../../engine';
import { chanceAllPass } from '../../../engine/speculation-threshold';
import { Harness } from './harness';

const batchesOf2: QueueConfigPatch = { batch: true, batchingMinSize: 2, concurrency: 4 };

/** A queue whose measured failure rate is `rate` (given the weight of 100 PRs), then PRs 1..n. */
function queue(config: QueueConfigPatch, rate: FailureRate | null, n: number): Harness {
  const q = new Harness(config);
  if (rate) q.state = { ...q.state, failureRate: rate };
  for (let pr = 1; pr <= n; pr += 1) q.submit(pr);
  return q;
}

const rate = (r: number): FailureRate => ({ merged: 100 * (1 - r), culprits: 100 * r });

/** In-flight counts with consecutive repeats collapsed: the path the depth took. */
function path(counts: number[]): number[] {
  return counts.filter((c, i) => i === 0 || c !== counts[i - 1]);
}

describe('speculation threshold', () => {
  it.each<[string, number, number, number]>([
    ['nothing under a batch', 0.5, 0, 1],
    ['16 PRs at 5%', 0.05, 16, 0.4401],
    ['24 PRs at 5%', 0.05, 24, 0.292],
    ['2 PRs at 50%', 0.5, 2, 0.25],
    ['a rate of 0', 0, 30, 1],
  ])('chance that all pass: %s', (_name, r, prs, expected) => {
    expect(chanceAllPass(r, prs)).toBeCloseTo(expected, 4);
  });

  it.each<[string, QueueConfigPatch, FailureRate | null, number[][]]>([
    [
      'at the prior (5%) every slot is used',
      batchesOf2,
      null,
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ],
    ],
    // 0.75^4 = 0.32 >= 0.25 but 0.75^6 = 0.18: at most 4 undecided PRs under a batch.
    [
      'at 25%, two batches under the third at most',
      batchesOf2,
      rate(0.25),
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    ['at 60%, only the head', batchesOf2, rate(0.6), [[1, 2]]],
    [
      'a higher threshold stacks less',
      { ...batchesOf2, speculationThreshold: 0.8 },
      null,
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    [
      'threshold 0 stacks as deep as concurrency',
      { ...batchesOf2, speculationThreshold: 0 },
      rate(0.5),
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ],
    ],
    [
      'without batching single PRs stack as deep as concurrency',
      { concurrency: 4 },
      rate(0.5),
      [[1], [2], [3], [4]],
    ],
  ])('%s', (_name, config, failureRate, expected) => {
    expect(queue(config, failureRate, 8).batches()).toEqual(expected);
  });

  it('holds back only the deep lane: another lane’s head still starts', () => {
    const q = new Harness({ ...batchesOf2, mode: 'parallel' });
    q.state = { ...q.state, failureRate: rate(0.6) };
    for (const pr of [1, 2, 3, 4]) q.submit(pr, { targets: ['a'] });
    expect(q.batches()).toEqual([[1, 2]]);
    q.submit(5, { targets: ['b'] });
    q.submit(6, { targets: ['b'] });
    expect(q.batches()).toEqual([
      [1, 2],
      [5, 6],
    ]);
  });

  it('does not hold back the successors pendingFailureDepth asks for on a failed batch', () => {
    const config = { batch: true, batchingMinSize: 1, concurrency: 3, pendingFailureDepth: 1 };
    const q = queue({ ...config, speculationThreshold: 0.6 }, rate(0.5), 3);
    expect(q.batches()).toEqual([[1]]);
    q.fail(1);
    expect(q.stateOf(1)).toBe('pending_failure');
    expect(q.runs()).toEqual([[1, 2]]);
  });

  it('starts the held batch as soon as the run under it passes', () => {
    const q = queue(batchesOf2, rate(0.6), 4);
    expect(q.batches()).toEqual([[1, 2]]);
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.batches()).toEqual([[3, 4]]);
  });

  it('shrinks the depth as culprits are found and grows it back as PRs merge', () => {
    // A young queue (its rate weighs 20 PRs) so that a few dozen outcomes move it; single-PR
    // batches so that every failure blames exactly one culprit.
    const q = new Harness({ batch: true, batchingMinSize: 1, concurrency: 4, speculationThreshold: 0.5 });
    q.state = { ...q.state, failureRate: { merged: 19, culprits: 1 } };
    let next = 1;
    const topUp = () => {
      while (q.state.entries.length < 8) q.submit(next++);
    };
    const head = () => q.batches()[0]![0]!;
    topUp();
    const failing: number[] = [q.runs().length];
    while (q.runs().length > 1) {
      q.fail(head());
      topUp();
      failing.push(q.runs().length);
    }
    // (1-r)^3 < 0.5 from r > 0.21, (1-r)^2 from 0.29, (1-r) from 0.5: 4 culprits, then 7, then 18
    // (each new outcome weighs a little more than the aging ones before it).
    expect(path(failing)).toEqual([4, 3, 2, 1]);
    expect(failing.indexOf(3)).toBe(4);
    expect(failing.indexOf(2)).toBe(7);
    expect(failing.length - 1).toBe(18);

    const passing: number[] = [];
    while (q.runs().length < 4) {
      q.pass(head());
      q.mergeAll();
      topUp();
      passing.push(q.runs().length);
    }
    expect(path(passing)).toEqual([2, 3, 4]);
    expect(passing.length).toBeLessThan(100);
  });

  // Issue 25: the threshold uses the chance, given what the queue knows, that what a batch stacks on
  // passes. PRs the bisection of their batch found good pass for sure; PRs under bisection, which
  // almost surely hold a culprit, are beside the line and under no batch.
  describe('conditional chance', () => {
    const config: QueueConfigPatch = {
      batch: true,
      batchingMinSize: 2,
      concurrency: 5,
      optimizationMode: 'bisection_skip_redundant_tests',
    };

    /** The batch [1, 2] fails; its bisection clears PR 1 and ejects PR 2; then PRs 3..10 arrive. */
    function clearedAhead(r: FailureRate): Harness {
      const q = queue(config, r, 2);
      q.fail(1);
      q.pass(1);
      expect(q.stateOf(2)).toBe('failed');
      for (let pr = 3; pr <= 10; pr += 1) q.submit(pr);
      q.advance(10);
      return q;
    }

    // At 60%: one fresh PR under a batch gives 0.4 >= 0.25, two give 0.16. PR 1 was cleared and
    // re-tested at once; [3, 4] stacks on it as on nothing (chance 1), and [5, 6] would have 2
    // uncertain PRs under it. On fresh PRs only the head runs.
    it('PRs cleared by bisection count as passing', () => {
      const q = clearedAhead(rate(0.6));
      expect(q.batches()).toEqual([[1], [3, 4]]);
      expect(q.state.entries.find((e) => e.pr === 1)?.cleared).toBe(true);
      expect(queue(config, rate(0.6), 10).batches()).toEqual([[1, 2]]);
    });
  });
});
