import { Harness } from './harness';

describe('target branch moved outside the queue', () => {
  it('restarts everything that was built or decided on the old tip, in the same order', () => {
    const q = new Harness({ concurrency: 2 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.pass(2);
    q.send({ type: 'targetBranchMoved', sha: 'pushed' });
    expect(q.state.tipSha).toBe('pushed');
    expect(q.runs()).toEqual([[1], [1, 2]]);
    expect(q.timeline(2).slice(-2)).toEqual([
      'pending:MANUAL_PUSH_TO_TARGET_BRANCH',
      'testing:TEST_RUN_STARTED',
    ]);
    expect(q.commandsOf('startTestRun').at(-1)?.baseSha).toBe('pushed');
  });

  it('treats a move to the tip it already holds as the echo of its own merge', () => {
    const q = new Harness();
    q.submit(1);
    q.pass(1);
    q.completeMerge();
    expect(q.send({ type: 'targetBranchMoved', sha: 'tip-1' })).toEqual([]);
  });

  it('restarts a merge that lost its compare-and-swap to a push', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.pass(1);
    const merge = q.state.merge!;
    q.send({ type: 'targetBranchMoved', sha: 'pushed' });
    expect(q.runs()).toEqual([[1, 2]]);
    q.send({
      type: 'mergeFailed',
      mergeId: merge.mergeId,
      reason: 'TARGET_BRANCH_MOVED',
      pr: null,
      mergedPrs: [],
      tipSha: 'pushed',
    });
    expect(q.runs()).toEqual([[1], [1, 2]]);
    expect(q.lastReason(1)).toBe('TEST_RUN_STARTED');
  });

  it('ends a PR merged by hand as MANUAL_MERGE and restarts the runs that had it', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.send({ type: 'mergedOutsideQueue', pr: 1 });
    expect(q.timeline(1).at(-1)).toBe('merged:MANUAL_MERGE');
    expect(q.timeline(2)).toContain('pending:PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED');
    expect(q.runs()).toEqual([[2]]);
  });
});
