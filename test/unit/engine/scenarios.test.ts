/**
 * Stories: a few minutes in the life of a queue, asserted as compact shapes (the runs in flight as
 * trees, the merges as PR lists).
 */
import { Harness } from './harness';

describe('scenarios', () => {
  it('predictive testing: each PR is tested on the tip plus everything ahead of it', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    expect(q.runs()).toEqual([[1], [1, 2], [1, 2, 3]]);
    q.pass(1);
    expect(q.runs()).toEqual([
      [1, 2],
      [1, 2, 3],
      [1, 2, 3, 4],
    ]);
    expect(q.mergeAll()).toEqual([[1]]);
    expect(q.runs()).toEqual([[2], [2, 3], [2, 3, 4]]);
  });

  it('a bad PR in the middle is ejected and only the runs behind it restart', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    q.fail(2);
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1]]);
    expect(q.states([1, 2, 3, 4])).toEqual({ 1: 'merged', 2: 'failed', 3: 'testing', 4: 'testing' });
    expect(q.runs()).toEqual([[3], [3, 4]]);
  });

  it("skip the line (Trunk's example): the urgent PR starts at once, A restarts on it, B drops back", () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.submit(9, { priority: 0 });
    expect(q.runs()).toEqual([[9], [9, 1]]);
    expect(q.states([1, 2, 9])).toEqual({ 1: 'testing', 2: 'pending', 9: 'testing' });
    expect(q.timeline(2).slice(-1)).toEqual(['pending:SKIP_THE_LINE_INTERRUPTED']);
  });

  it('anti-flake protection: a flaky failure is cleared by the run behind it', () => {
    const q = new Harness({ concurrency: 3, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.fail(1);
    q.pass(2);
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.runs()).toEqual([[3]]);
  });

  // Issue 25: the failed batch leaves the line and is bisected beside it, so the next batch starts at
  // once and merges first; the PRs found good come back at the front and are tested again.
  it('a batch with one bad PR: bisected beside the line, the culprit ejected, everyone else merged', () => {
    const q = new Harness({
      batch: true,
      batchingMinSize: 4,
      bisectionConcurrency: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
    });
    [1, 2, 3, 4, 5, 6, 7, 8].forEach((pr) => q.submit(pr));
    expect(q.batches()).toEqual([[1, 2, 3, 4]]);
    q.fail(1);
    expect(q.batches()).toEqual([
      [1, 2],
      [5, 6, 7, 8],
    ]);
    q.pass(1);
    expect(q.states([1, 2])).toEqual({ 1: 'pending', 2: 'pending' });
    expect(q.batches()).toEqual([[3], [5, 6, 7, 8]]);
    q.pass(5);
    expect(q.mergeAll()).toEqual([[5, 6, 7, 8]]);
    expect(q.batches()).toEqual([[3], [1, 2]]);
    q.fail(3);
    expect(q.states([3, 4])).toEqual({ 3: 'failed', 4: 'pending' });
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.batches()).toEqual([[4]]);
    q.pass(4);
    expect(q.mergeAll()).toEqual([[4]]);
    expect(q.commandsOf('merge').flatMap((m) => m.prs)).toEqual([5, 6, 7, 8, 1, 2, 4]);
    expect(q.state.entries).toEqual([]);
  });

  it("parallel lanes: Trunk's A/B/C/D example merges lane by lane", () => {
    const q = new Harness({ mode: 'parallel', concurrency: 4 });
    q.submit(1, { targets: ['frontend'] });
    q.submit(2, { targets: ['backend'] });
    q.submit(3, { targets: ['frontend', 'backend'] });
    q.submit(4, { targets: ['docs'] });
    q.pass(4);
    expect(q.mergeAll()).toEqual([[4]]);
    q.pass(3);
    expect(q.state.merge).toBeNull();
    q.pass(2);
    expect(q.mergeAll()).toEqual([[2]]);
    q.pass(1);
    expect(q.state.merge).toMatchObject({ prs: [1, 3], via: 'rebase' });
    expect(q.mergeAll()).toEqual([[1, 3]]);
  });

  it('a code freeze: draining lets what is in flight land, then nothing starts until running again', () => {
    const q = new Harness({ concurrency: 2 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.send({ type: 'configUpdated', patch: {}, state: 'draining' });
    q.pass(1);
    q.pass(2);
    expect(q.mergeAll()).toEqual([[1], [2]]);
    expect(q.runs()).toEqual([]);
    q.send({ type: 'configUpdated', patch: {}, state: 'running' });
    expect(q.runs()).toEqual([[3]]);
  });

  it('a run that hangs times out, the next PR goes on, and the PR can be restarted later', () => {
    const q = new Harness({ concurrency: 2, testingTimeoutMinutes: 30 });
    [1, 2].forEach((pr) => q.submit(pr));
    q.advance(30);
    expect(q.states([1, 2])).toEqual({ 1: 'failed', 2: 'testing' });
    expect(q.runs()).toEqual([[2]]);
  });
});
