import { Harness, type SubmitOptions } from './harness';

type Step = [pr: number, options?: SubmitOptions];

describe('line order', () => {
  it.each<[string, { concurrency: number }, Step[], number[]]>([
    ['equal priorities go in submission order', { concurrency: 1 }, [[1], [2], [3]], [1, 2, 3]],
    [
      'higher priority goes before PRs that have not started',
      { concurrency: 1 },
      [[1], [2, { priority: 200 }], [3, { priority: 10 }]],
      [1, 3, 2],
    ],
    [
      'higher priority does not overtake a started PR',
      { concurrency: 2 },
      [[1], [2], [3, { priority: 10 }]],
      [1, 2, 3],
    ],
    ['urgent goes ahead of started PRs', { concurrency: 2 }, [[1], [2], [3, { priority: 0 }]], [3, 1, 2]],
    [
      'urgent PRs keep submission order among themselves',
      { concurrency: 3 },
      [[1], [2, { priority: 0 }], [3, { priority: 0 }]],
      [2, 3, 1],
    ],
    ['not-ready PRs are not in the line', { concurrency: 1 }, [[1], [2, { ready: false }], [3]], [1, 3]],
  ])('%s', (_name, config, steps, expected) => {
    const q = new Harness(config);
    for (const [pr, options] of steps) q.submit(pr, options);
    expect(q.line()).toEqual(expected);
  });

  it('puts an urgent PR behind the PRs being merged, not ahead of them', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.pass(1);
    expect(q.state.merge?.prs).toEqual([1]);
    q.submit(3, { priority: 0 });
    expect(q.line()).toEqual([1, 3, 2]);
    expect(q.completeMerge()).toEqual([1]);
    expect(q.runs()).toEqual([[3], [3, 2]]);
  });

  it('re-admits a PR that was not ready by its priority, not its old place', () => {
    const q = new Harness({ concurrency: 1 });
    q.submit(1);
    q.submit(2);
    q.submit(3);
    q.send({ type: 'notReady', pr: 2, reason: 'AWAITING_MERGEABILITY' });
    q.submit(4, { priority: 10 });
    q.send({ type: 'ready', pr: 2, headSha: 'head-2', baseSha: null });
    expect(q.line()).toEqual([1, 4, 2, 3]);
  });
});
