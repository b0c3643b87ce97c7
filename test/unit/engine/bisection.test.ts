import { queueConfig, type QueueConfigPatch } from '../../../engine';
import { chunkCount, splitIntoChunks } from '../../../engine/bisection';
import { Harness } from './harness';

const skip = 'bisection_skip_redundant_tests' as const;

describe('bisection', () => {
  it.each<[string, QueueConfigPatch, number, number]>([
    ['one slot with skipping: halves', { bisectionConcurrency: 1, optimizationMode: skip }, 8, 2],
    ['one slot without skipping: halves', { bisectionConcurrency: 1 }, 8, 2],
    [
      'three slots with skipping: four chunks, the last known',
      { bisectionConcurrency: 3, optimizationMode: skip },
      8,
      4,
    ],
    ['three slots without skipping: three chunks', { bisectionConcurrency: 3 }, 8, 3],
    ['never more chunks than PRs', { bisectionConcurrency: 10, optimizationMode: skip }, 3, 3],
  ])('chunk count: %s', (_name, patch, size, expected) => {
    expect(chunkCount(queueConfig(patch), size)).toBe(expected);
  });

  it.each<[number[], number, number[][]]>([
    [
      [1, 2, 3, 4],
      2,
      [
        [1, 2],
        [3, 4],
      ],
    ],
    [
      [1, 2, 3, 4, 5],
      2,
      [
        [1, 2, 3],
        [4, 5],
      ],
    ],
    [[1, 2, 3, 4, 5, 6, 7, 8], 5, [[1, 2], [3, 4], [5, 6], [7], [8]]],
    [[1, 2], 4, [[1], [2]]],
  ])('splits %j into %i ordered chunks', (items, m, expected) => {
    expect(splitIntoChunks(items, m)).toEqual(expected);
  });

  function failedBatch(config: QueueConfigPatch): Harness {
    const q = new Harness({ batch: true, batchingMinSize: 4, ...config });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([[1, 2, 3, 4]]);
    q.fail(1);
    return q;
  }

  it('finds the culprit with binary bisection and merges the PRs ahead of it', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: skip });
    expect(q.runs()).toEqual([[1, 2]]);
    expect(q.states([3, 4])).toEqual({ 3: 'pending_failure', 4: 'pending_failure' });
    expect(q.lastReason(3)).toBe('TEST_RUN_FAILED_BY_OPTIMIZATION');
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.runs()).toEqual([[3]]);
    q.fail(3);
    expect(q.timeline(3).at(-1)).toBe('failed:TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(q.batches()).toEqual([[4]]);
    expect(q.lastReason(4)).toBe('TEST_RUN_STARTED');
  });

  it('blames a PR by inference when the run before it passed, with TEST_RUN_FAILED_BY_OPTIMIZATION', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: skip });
    q.pass(1);
    q.mergeAll();
    q.pass(3);
    expect(q.mergeAll()).toEqual([[3]]);
    expect(q.timeline(4).at(-1)).toBe('failed:TEST_RUN_FAILED_BY_OPTIMIZATION');
    expect(
      q
        .commandsOf('startTestRun')
        .filter((c) => c.bisection)
        .map((c) => [...c.ahead, ...c.prs]),
    ).toEqual([[1, 2], [3]]);
  });

  it('re-runs the known-bad tree without bisection_skip_redundant_tests (a flaky batch can pass)', () => {
    const q = failedBatch({ bisectionConcurrency: 1 });
    q.pass(1);
    q.mergeAll();
    expect(q.runs()).toEqual([[3, 4]]);
    q.pass(3);
    expect(q.mergeAll()).toEqual([[3, 4]]);
  });

  it('tests the prefixes in parallel on the bisection slots, not the main ones', () => {
    const q = failedBatch({ concurrency: 1, bisectionConcurrency: 3, optimizationMode: skip });
    expect(q.runs()).toEqual([[1], [1, 2], [1, 2, 3]]);
    expect(
      q
        .commandsOf('startTestRun')
        .slice(-3)
        .every((c) => c.bisection),
    ).toBe(true);
    q.submit(5);
    expect(q.runs()).toHaveLength(3);
  });

  it('restarts the runs built on a batch that goes into bisection', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2, concurrency: 2, optimizationMode: skip });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    q.fail(1);
    expect(q.timeline(3)).toContain('pending:BISECTION_REQUIRED');
    expect(q.runs()).toEqual([[1]]);
    expect(q.commandsOf('startTestRun').at(-1)).toMatchObject({ prs: [1], bisection: true });
  });
});
