import { Harness } from './harness';

describe('restart in place', () => {
  it('re-runs the same tree without moving the PR or restarting the runs behind it', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    const [run1, run2, run3] = [q.runOf(1), q.runOf(2), q.runOf(3)];
    q.send({ type: 'restarted', pr: 2, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(q.commandsOf('cancelTestRun')).toEqual([
      { type: 'cancelTestRun', runId: run2, reason: 'TESTS_RESTARTED_BY_API_REQUEST' },
    ]);
    expect(q.runs()).toEqual([[1], [1, 2], [1, 2, 3]]);
    expect([q.runOf(1), q.runOf(3)]).toEqual([run1, run3]);
    expect(q.runOf(2)).not.toBe(run2);
    expect(q.timeline(2).slice(-2)).toEqual([
      'pending:TESTS_RESTARTED_BY_API_REQUEST',
      'testing:TEST_RUN_STARTED',
    ]);
  });

  it('retests a PR held in pending failure (a suspected flake)', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.fail(2);
    q.send({ type: 'restarted', pr: 2, reason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.stateOf(2)).toBe('testing');
    q.pass(2);
    q.pass(1);
    expect(q.mergeAll()).toEqual([[1, 2]]);
  });

  it('re-runs a whole batch when one of its PRs is restarted', () => {
    const q = new Harness({ batch: true, batchingMinSize: 2 });
    q.submit(1);
    q.submit(2);
    q.send({ type: 'restarted', pr: 2, reason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.batches()).toEqual([[1, 2]]);
    expect(q.commandsOf('startTestRun')).toHaveLength(2);
  });

  it.each<[string, 'paused' | 'draining', number[][]]>([
    ['while draining (it is part of what is in flight)', 'draining', [[1]]],
    ['not while paused', 'paused', []],
  ])('re-runs a PR restarted %s', (_name, status, runs) => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.send({ type: 'configUpdated', patch: {}, state: status });
    q.send({ type: 'restarted', pr: 1, reason: 'TESTS_RESTARTED_BY_USER' });
    q.pass(2);
    expect(q.runs()).toEqual(runs);
  });

  it('ignores a restart of a PR that has nothing to restart', () => {
    const q = new Harness();
    q.submit(1);
    q.submit(2);
    const before = q.state;
    expect(q.send({ type: 'restarted', pr: 2, reason: 'TESTS_RESTARTED_BY_USER' })).toEqual([]);
    expect(q.state).toEqual(before);
  });
});
