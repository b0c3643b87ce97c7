import { decide, initialState, type EngineEvent, type QueueState } from '../../../engine';
import { Harness } from './harness';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('decide', () => {
  it('never mutates the state it is given', () => {
    const q = new Harness({ concurrency: 2, batch: true, batchingMinSize: 2 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    const frozen = deepFreeze(structuredClone(q.state));
    const events: EngineEvent[] = [
      { type: 'testRunFinished', runId: q.runOf(1), outcome: 'failed' },
      { type: 'cancelled', pr: 3, reason: 'USER_REQUESTED' },
      { type: 'targetBranchMoved', sha: 'x' },
      { type: 'submitted', pr: 4, headSha: 'h', priority: 0, noBatch: false, ready: true, baseSha: null },
    ];
    for (const event of events)
      expect(() => decide(frozen, event, { now: 1, newId: () => 'id' })).not.toThrow();
  });

  it('is deterministic, and a state carried through JSON (continue-as-new) decides the same', () => {
    const run = (carry: (s: QueueState) => QueueState) => {
      const q = new Harness({ concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
      [1, 2, 3, 4].forEach((pr) => q.submit(pr));
      q.state = carry(q.state);
      q.fail(1);
      q.pass(3);
      q.state = carry(q.state);
      q.mergeAll();
      return { log: q.log, state: q.state };
    };
    const direct = run((s) => s);
    const carried = run((s) => JSON.parse(JSON.stringify(s)) as QueueState);
    expect(carried).toEqual(direct);
  });

  it('changes nothing on a tick with nothing due', () => {
    const q = new Harness();
    q.submit(1);
    const before = q.state;
    expect(q.send({ type: 'tick' })).toEqual([]);
    expect(q.state).toEqual(before);
  });

  it('leaves nothing behind once every PR has finished', () => {
    const q = new Harness({ concurrency: 2, optimizationMode: 'bisection_skip_redundant_tests' });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.pass(1);
    q.fail(2);
    q.mergeAll();
    q.send({ type: 'cancelled', pr: 3, reason: 'USER_REQUESTED' });
    expect(q.state).toEqual({
      ...initialState({ concurrency: 2, optimizationMode: 'bisection_skip_redundant_tests' }),
      tipSha: 'tip-1',
      nextSeq: 4,
      nextGroupKey: q.state.nextGroupKey,
    });
  });
});
