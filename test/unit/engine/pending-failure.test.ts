import { type QueueConfigPatch } from '../../../engine';
import { Harness } from './harness';

function line(config: QueueConfigPatch, prs: number[]): Harness {
  const q = new Harness(config);
  prs.forEach((pr) => q.submit(pr));
  return q;
}

describe('pending failure', () => {
  it('fails a PR at the head of the line at once with depth 0', () => {
    const q = line({ concurrency: 2 }, [1, 2]);
    q.fail(1);
    expect(q.timeline(1).slice(-2)).toEqual([
      'pending_failure:TEST_RUN_REQUIRED_STATUS_FAILED',
      'failed:TEST_RUN_REQUIRED_STATUS_FAILED',
    ]);
    expect(q.runs()).toEqual([[2]]);
    expect(q.timeline(2)).toContain('pending:PREREQUISITE_MERGE_ITEM_FAILED');
  });

  it('holds a failure behind a PR still testing, then blames it when that PR merges', () => {
    const q = line({ concurrency: 2 }, [1, 2]);
    q.fail(2);
    expect(q.states([1, 2])).toEqual({ 1: 'testing', 2: 'pending_failure' });
    q.pass(1);
    q.mergeAll();
    expect(q.stateOf(2)).toBe('failed');
  });

  it('retests a held failure without the predecessor that failed too', () => {
    const q = line({ concurrency: 2 }, [1, 2]);
    q.fail(2);
    q.fail(1);
    expect(q.states([1, 2])).toEqual({ 1: 'failed', 2: 'testing' });
    expect(q.timeline(2).slice(-2)).toEqual([
      'pending:PREREQUISITE_MERGE_ITEM_FAILED',
      'testing:TEST_RUN_STARTED',
    ]);
    expect(q.runs()).toEqual([[2]]);
  });

  it('starts nothing new on top of a held failure with depth 0', () => {
    const q = line({ concurrency: 3 }, [1, 2]);
    q.fail(2);
    q.submit(3);
    expect(q.runs()).toEqual([[1]]);
  });

  describe('with pendingFailureDepth 1', () => {
    it('waits for the next run before blaming', () => {
      const q = line({ concurrency: 2, pendingFailureDepth: 1 }, [1, 2]);
      q.fail(1);
      expect(q.stateOf(1)).toBe('pending_failure');
      q.fail(2);
      expect(q.states([1, 2])).toEqual({ 1: 'failed', 2: 'testing' });
      expect(q.runs()).toEqual([[2]]);
    });

    it('forgives a flake when the next run passes and optimistic merging is on', () => {
      const q = line({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true }, [1, 2]);
      q.fail(1);
      q.pass(2);
      expect(q.mergeAll()).toEqual([[1, 2]]);
      expect(q.timeline(1).slice(-3)).toEqual([
        'pending_failure:TEST_RUN_REQUIRED_STATUS_FAILED',
        'tests_passed:LATER_TEST_RUN_PASSED',
        'merged:MERGE_GRAPH_MERGE',
      ]);
    });

    it('starts a successor on top of the failure in serial mode so there is something to wait for', () => {
      const q = line({ concurrency: 1, pendingFailureDepth: 1 }, [1, 2, 3]);
      q.fail(1);
      expect(q.runs()).toEqual([[1, 2]]);
    });

    it('does not wait for a successor that does not exist', () => {
      const q = line({ concurrency: 1, pendingFailureDepth: 1 }, [1]);
      q.fail(1);
      expect(q.stateOf(1)).toBe('failed');
    });

    it('lets at most depth runs start on top of a failure', () => {
      const q = line({ concurrency: 1, pendingFailureDepth: 1 }, [1, 2, 3]);
      q.fail(1);
      q.send({ type: 'configUpdated', patch: { concurrency: 3 } });
      expect(q.runs()).toEqual([[1, 2]]);
    });
  });

  it('blames only the named culprit of a merge conflict; its batch mates are tested again', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2 });
    q.submit(1);
    q.submit(2);
    q.send({
      type: 'testRunFailedToStart',
      runId: q.runOf(1),
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      culpritPr: 2,
    });
    expect(q.timeline(2).at(-1)).toBe('failed:START_TEST_RUN_MERGE_CONFLICT');
    expect(q.batches()).toEqual([[1]]);
  });
});
