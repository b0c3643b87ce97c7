import { queueConfig, type QueueConfigPatch } from '../../../engine';
import { chunkCount, splitIntoChunks } from '../../../engine/bisection';
import { Harness } from './harness';

const skip = 'bisection_skip_redundant_tests' as const;

describe('bisection', () => {
  // Issue 25: beside the line a bisection holds up only its own PRs, so it halves (fewest runs) whatever
  // the bisection slots; the slots bound the bisection runs in flight across bisections.
  it.each<[string, QueueConfigPatch, number, number]>([
    ['one slot with skipping: halves', { bisectionConcurrency: 1, optimizationMode: skip }, 8, 2],
    ['one slot without skipping: halves', { bisectionConcurrency: 1 }, 8, 2],
    ['three slots with skipping: halves', { bisectionConcurrency: 3, optimizationMode: skip }, 8, 2],
    ['three slots without skipping: halves', { bisectionConcurrency: 3 }, 8, 2],
    ['a single PR is one chunk', { bisectionConcurrency: 10, optimizationMode: skip }, 1, 1],
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

  it('bisects on the bisection slots, not the main ones, and several failed batches at once', () => {
    const q = new Harness({
      batch: true,
      batchingMinSize: 2,
      concurrency: 2,
      bisectionConcurrency: 2,
      optimizationMode: skip,
    });
    [1, 2, 3, 4, 5, 6, 7, 8].forEach((pr) => q.submit(pr));
    q.fail(1);
    expect(q.batches()).toEqual([[1], [3, 4], [5, 6]]);
    q.fail(3);
    expect(q.batches()).toEqual([[1], [3], [5, 6], [7, 8]]);
    expect(
      q
        .commandsOf('startTestRun')
        .filter((c) => c.bisection)
        .map((c) => c.prs),
    ).toEqual([[1], [3]]);
    q.submit(9);
    q.submit(10);
    q.fail(5);
    // Two bisection runs are in flight: the third failed batch waits for a bisection slot.
    expect(q.batches()).toEqual([[1], [3], [7, 8], [9, 10]]);
    q.pass(1);
    expect(q.batches()).toEqual([[3], [5], [7, 8], [9, 10]]);
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

  describe('a PR under bisection', () => {
    function underBisection(): Harness {
      const q = new Harness({ batch: true, batchingMinSize: 4, concurrency: 1, optimizationMode: skip });
      [1, 2, 3, 4].forEach((pr) => q.submit(pr));
      q.fail(1);
      expect(q.runs()).toEqual([[1, 2]]);
      return q;
    }

    it('comes back to the front of the line in priority order, ahead of PRs not yet tested', () => {
      const q = underBisection();
      q.submit(5, { priority: 10 });
      q.submit(6);
      q.send({ type: 'priorityChanged', pr: 2, priority: 10, noBatch: false });
      q.pass(1);
      expect(q.line().slice(0, 4)).toEqual([2, 1, 5, 6]);
      expect(q.batches()).toEqual([[2, 1, 5, 6], [3]]);
    });

    it('does not hold back an urgent PR: it skips the line and the bisection goes on', () => {
      const q = underBisection();
      q.submit(5);
      q.submit(6, { priority: 0 });
      expect(q.batches()).toEqual([
        [6, 5],
        [1, 2],
      ]);
      expect(q.commandsOf('cancelTestRun')).toEqual([]);
    });

    it('ends its bisection when it skips the line: the others come back untested', () => {
      const q = underBisection();
      const chunk = q.runOf(1);
      q.send({ type: 'priorityChanged', pr: 3, priority: 0, noBatch: false });
      expect(q.commandsOf('cancelTestRun')).toEqual([
        { type: 'cancelTestRun', runId: chunk, reason: 'SKIP_THE_LINE_INTERRUPTED' },
      ]);
      expect(q.state.groups.filter((g) => g.bisection)).toEqual([]);
      // It skipped the line; the PRs of its bisection re-entered right behind it and join its batch.
      expect(q.line()).toEqual([3, 1, 2, 4]);
      expect(q.batches()).toEqual([[3, 1, 2, 4]]);
    });

    it('ends its bisection when cancelled: the others re-enter the line untested', () => {
      const q = underBisection();
      q.send({ type: 'cancelled', pr: 4, reason: 'PR_CLOSED' });
      expect(q.commandsOf('cancelTestRun').map((c) => c.reason)).toEqual([
        'PREREQUISITE_MERGE_ITEM_CANCELLED',
      ]);
      expect(q.state.groups.filter((g) => g.bisection)).toEqual([]);
      expect(q.batches()).toEqual([[1, 2, 3]]);
      expect(q.timeline(1)).toContain('pending:PREREQUISITE_MERGE_ITEM_CANCELLED');
      expect(q.stateOf(4)).toBe('cancelled');
    });

    it('is tested again on the same tree when restarted, and the bisection goes on', () => {
      const q = underBisection();
      const first = q.runOf(1);
      q.send({ type: 'restarted', pr: 2, reason: 'TESTS_RESTARTED_BY_USER' });
      expect(q.commandsOf('cancelTestRun')).toEqual([
        { type: 'cancelTestRun', runId: first, reason: 'TESTS_RESTARTED_BY_USER' },
      ]);
      expect(q.commandsOf('startTestRun').at(-1)).toMatchObject({ prs: [1, 2], ahead: [], bisection: true });
      q.pass(1);
      expect(q.states([1, 2, 3])).toEqual({ 1: 'testing', 2: 'testing', 3: 'testing' });
    });

    it('restarting the known-failed half runs it: a flaked batch is then cleared whole', () => {
      const q = underBisection();
      q.send({ type: 'restarted', pr: 4, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
      expect(q.states([3, 4])).toEqual({ 3: 'pending', 4: 'pending' });
      // One bisection slot (it follows concurrency): the half waits for it, then runs on what is left.
      q.pass(1);
      expect(q.runs()).toEqual([
        [1, 2],
        [3, 4],
      ]);
      q.pass(3);
      expect(q.state.groups.filter((g) => g.bisection)).toEqual([]);
      expect(q.timeline(4)).toContain('pending:BISECTION_CLEARED');
    });

    it('stays in its bisection when the main line merges under it', () => {
      const q = underBisection();
      [5, 6].forEach((pr) => q.submit(pr));
      q.advance(5);
      expect(q.batches()).toEqual([
        [1, 2],
        [5, 6],
      ]);
      q.pass(5);
      expect(q.mergeAll()).toEqual([[5, 6]]);
      expect(q.batches()).toEqual([[1, 2]]);
      q.fail(1);
      // The half after the failed one was tested on a culprit: it re-enters the line untested.
      expect(q.batches()).toEqual([[3, 4], [1]]);
      expect(q.lastReason(4)).toBe('TEST_RUN_STARTED');
    });
  });
});
