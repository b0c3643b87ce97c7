import { Harness } from './harness';

describe('merging and optimistic merging', () => {
  it('without optimistic merging, a later pass waits for the PRs ahead and they merge in order', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.pass(3);
    expect(q.state.merge).toBeNull();
    expect(q.stateOf(3)).toBe('tests_passed');
    q.pass(2);
    expect(q.state.merge).toBeNull();
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2, 3]]);
  });

  it('without optimistic merging, a later pass does not rescue a failure ahead of it', () => {
    const q = new Harness({ concurrency: 2, pendingFailureDepth: 1 });
    [1, 2].forEach((pr) => q.submit(pr));
    q.fail(1);
    q.pass(2);
    expect(q.state.merge).toBeNull();
    expect(q.states([1, 2])).toEqual({ 1: 'failed', 2: 'testing' });
  });

  it('with optimistic merging, a later pass merges the PRs ahead and cancels their runs', () => {
    const q = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    const first = q.runOf(1);
    q.pass(2);
    expect(q.state.merge).toMatchObject({ prs: [1, 2], via: 'tested_commit', runId: q.state.merge?.runId });
    expect(q.commandsOf('cancelTestRun')).toEqual([
      { type: 'cancelTestRun', runId: first, reason: 'COVERED_BY_PASSING_RUN' },
    ]);
    expect(q.lastReason(1)).toBe('LATER_TEST_RUN_PASSED');
    expect(q.mergeAll()).toEqual([[1, 2]]);
    expect(q.runs()).toEqual([[3]]);
  });

  it('merges the furthest-back passed tree in one merge', () => {
    const q = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.send({ type: 'configUpdated', patch: {}, state: 'paused' });
    q.pass(2);
    q.pass(3);
    q.send({ type: 'configUpdated', patch: {}, state: 'running' });
    expect(q.mergeAll()).toEqual([[1, 2, 3]]);
  });

  it('keeps one merge in flight at a time', () => {
    const q = new Harness({ concurrency: 2 });
    [1, 2].forEach((pr) => q.submit(pr));
    q.pass(1);
    q.pass(2);
    expect(q.commandsOf('merge').map((m) => m.prs)).toEqual([[1]]);
    q.completeMerge();
    expect(q.commandsOf('merge').map((m) => m.prs)).toEqual([[1], [2]]);
    expect(q.commandsOf('merge').map((m) => m.expectedTipSha)).toEqual(['tip-0', 'tip-1']);
  });
});
