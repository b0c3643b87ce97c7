import { type QueueConfigPatch } from '../../../engine';
import { Harness, type SubmitOptions } from './harness';

const batching: QueueConfigPatch = { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 5 };

describe('batching', () => {
  it.each<[string, QueueConfigPatch, [number, SubmitOptions?][], number[][]]>([
    ['a full batch starts at once', batching, [[1], [2], [3], [4]], [[1, 2, 3]]],
    ['a short batch waits for more PRs', batching, [[1], [2]], []],
    ['a noBatch PR is tested alone', batching, [[1, { noBatch: true }], [2], [3], [4]], [[1]]],
    [
      'a noBatch PR closes the batch ahead of it, which starts short',
      batching,
      [[1], [2, { noBatch: true }]],
      [[1]],
    ],
    ['batching off tests one PR per run', { ...batching, batch: false }, [[1], [2]], [[1]]],
  ])('%s', (_name, config, prs, expected) => {
    const q = new Harness(config);
    for (const [pr, options] of prs) q.submit(pr, options);
    expect(q.batches()).toEqual(expected);
  });

  it('starts a short batch when its oldest PR has waited batchingMaxWaitTimeMinutes', () => {
    const q = new Harness(batching);
    const submitted = q.now;
    q.submit(1);
    q.advance(2);
    q.submit(2);
    expect(q.state.wakeAt).toBe(submitted + 5 * 60_000);
    q.advance(2);
    expect(q.batches()).toEqual([]);
    q.advance(1);
    expect(q.batches()).toEqual([[1, 2]]);
  });

  it('does not make restarted PRs wait for a batch to fill', () => {
    const q = new Harness({ ...batching, concurrency: 2 });
    [1, 2, 3, 4, 5].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([[1, 2, 3]]);
    q.send({ type: 'cancelled', pr: 2, reason: 'USER_REQUESTED' });
    expect(q.batches()).toEqual([[1, 3, 4]]);
  });

  it('keeps a batch inside one lane in parallel mode', () => {
    const q = new Harness({ ...batching, mode: 'parallel', concurrency: 2 });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['b'] });
    q.submit(3, { targets: ['a'] });
    q.submit(4, { targets: ['b'] });
    q.submit(5, { targets: ['a'] });
    expect(q.batches()).toEqual([[1, 3, 5]]);
    q.submit(6, { targets: ['b'] });
    expect(q.batches()).toEqual([
      [1, 3, 5],
      [2, 4, 6],
    ]);
  });
});
