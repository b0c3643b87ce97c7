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

  // Issue 25: bisection runs only classify. A chunk that passes clears its tree's PRs, which go back to
  // the front of the line and are tested again there; nothing merges on a bisection run.
  it('finds the culprit with binary bisection; the PRs found good are tested again in the line', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: skip });
    expect(q.runs()).toEqual([[1, 2]]);
    expect(q.states([3, 4])).toEqual({ 3: 'pending_failure', 4: 'pending_failure' });
    expect(q.lastReason(3)).toBe('TEST_RUN_FAILED_BY_OPTIMIZATION');
    q.pass(1);
    expect(q.timeline(1).slice(-3, -1)).toEqual([
      'tests_passed:TEST_RUN_PASSED',
      'pending:BISECTION_CLEARED',
    ]);
    expect(q.mergeAll()).toEqual([]);
    expect(q.runs()).toEqual([[1, 2], [3]]);
    expect(q.commandsOf('startTestRun').at(-1)).toMatchObject({ prs: [1, 2], bisection: false });
    q.fail(3);
    expect(q.timeline(3).at(-1)).toBe('failed:TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(q.lastReason(4)).toBe('PREREQUISITE_MERGE_ITEM_FAILED');
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.batches()).toEqual([[4]]);
    expect(q.lastReason(4)).toBe('TEST_RUN_STARTED');
  });

  it('names the runs that convicted a culprit: the failed batch, the chunk that cleared the rest, its own', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: skip });
    const starts = () => q.commandsOf('startTestRun').map((c) => c.runId);
    const [batchRun] = starts();
    const half = q.runOf(1);
    q.pass(1);
    const three = q.runOf(3);
    q.fail(3);
    const ejected = q.notifications(3).at(-1)!;
    expect(ejected).toMatchObject({ to: 'failed', runId: three, convictedBy: [batchRun, half, three] });
    expect(q.notifications(1).every((n) => n.convictedBy === undefined)).toBe(true);
  });

  it('blames a PR by inference when the run before it passed, with TEST_RUN_FAILED_BY_OPTIMIZATION', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: skip });
    const [batchRun] = q.commandsOf('startTestRun').map((c) => c.runId);
    const half = q.runOf(1);
    q.pass(1);
    const three = q.runOf(3);
    q.pass(3);
    expect(q.timeline(4).at(-1)).toBe('failed:TEST_RUN_FAILED_BY_OPTIMIZATION');
    expect(q.notifications(4).at(-1)?.convictedBy).toEqual([batchRun, half, three]);
    expect(q.timeline(3).at(-1)).toBe('pending:BISECTION_CLEARED');
    expect(
      q
        .commandsOf('startTestRun')
        .filter((c) => c.bisection)
        .map((c) => [...c.ahead, ...c.prs]),
    ).toEqual([[1, 2], [3]]);
  });

  it('re-runs the known-bad tree without bisection_skip_redundant_tests: a flaky batch is cleared whole', () => {
    const q = failedBatch({ bisectionConcurrency: 2 });
    expect(q.runs()).toEqual([
      [1, 2],
      [1, 2, 3, 4],
    ]);
    q.pass(3);
    expect(q.states([1, 2, 3, 4])).toEqual({ 1: 'testing', 2: 'testing', 3: 'testing', 4: 'testing' });
    expect(q.commandsOf('cancelTestRun').at(-1)).toMatchObject({ reason: 'COVERED_BY_PASSING_RUN' });
    expect(q.batches()).toEqual([[1, 2, 3, 4]]);
    expect(q.commandsOf('startTestRun').at(-1)).toMatchObject({ bisection: false });
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2, 3, 4]]);
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
    q.advance(5);
    expect(q.runs()).toHaveLength(4);
    expect(q.batches().at(-1)).toEqual([5]);
  });

  it('keeps the line moving: the runs built on the failed batch restart without it, at once', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2, concurrency: 2, optimizationMode: skip });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    q.fail(1);
    expect(q.timeline(3)).toContain('pending:BISECTION_REQUIRED');
    expect(q.runs()).toEqual([[1], [3, 4]]);
    expect(q.commandsOf('startTestRun').slice(-2)).toMatchObject([
      { prs: [1], ahead: [], bisection: true },
      { prs: [3, 4], ahead: [], bisection: false },
    ]);
    q.pass(3);
    expect(q.mergeAll()).toEqual([[3, 4]]);
  });
});
