import { Harness } from './harness';

describe('merge results', () => {
  it('ignores a result for a merge that is not in flight', () => {
    const q = new Harness();
    q.submit(1);
    q.pass(1);
    expect(q.send({ type: 'mergeDone', mergeId: 'other', newTipSha: 'x' })).toEqual([]);
    expect(q.stateOf(1)).toBe('tests_passed');
  });

  it.each([
    ['GITHUB_API_MERGE_PR_FAILED' as const],
    ['PR_UPDATED_AT_MERGE_TIME' as const],
    ['MERGE_CONFLICT_AT_MERGE_TIME' as const],
    ['LANDED_TREE_DIFFERS' as const],
  ])('fails the PR to blame with %s and retests the runs that had it', (reason) => {
    const q = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.pass(2);
    q.send({
      type: 'mergeFailed',
      mergeId: q.state.merge!.mergeId,
      reason,
      pr: 2,
      mergedPrs: [],
      tipSha: null,
    });
    expect(q.timeline(2).at(-1)).toBe(`failed:${reason}`);
    expect(q.stateOf(1)).toBe('tests_passed');
    expect(q.state.merge?.prs).toEqual([1]);
    expect(q.runs()).toEqual([[1, 3]]);
  });

  it('records the PRs that landed before a merge failed', () => {
    const q = new Harness({ concurrency: 2, canOptimisticallyMerge: true });
    [1, 2].forEach((pr) => q.submit(pr));
    q.pass(2);
    q.send({
      type: 'mergeFailed',
      mergeId: q.state.merge!.mergeId,
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      pr: 2,
      mergedPrs: [1],
      tipSha: 'tip-a',
    });
    expect(q.states([1, 2])).toEqual({ 1: 'merged', 2: 'failed' });
    expect(q.state.tipSha).toBe('tip-a');
    expect(q.state.entries).toEqual([]);
  });
});
