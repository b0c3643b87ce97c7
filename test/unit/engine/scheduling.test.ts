import { type QueueConfigPatch, type RequestedStatus } from '../../../engine';
import { Harness } from './harness';

describe('test slots', () => {
  it.each<[string, QueueConfigPatch, RequestedStatus, number]>([
    ['concurrency 1', { concurrency: 1 }, 'running', 1],
    ['concurrency 3', { concurrency: 3 }, 'running', 3],
    ['more slots than PRs', { concurrency: 10 }, 'running', 5],
    ['paused starts nothing', { concurrency: 3 }, 'paused', 0],
    ['draining starts nothing new', { concurrency: 3 }, 'draining', 0],
  ])('main runs in flight: %s', (_name, config, status, expected) => {
    const q = new Harness(config);
    q.send({ type: 'configUpdated', patch: {}, state: status });
    [1, 2, 3, 4, 5].forEach((pr) => q.submit(pr));
    expect(q.runs()).toHaveLength(expected);
  });

  it.each<[string, RequestedStatus, number]>([
    ['while running', 'running', 2],
    ['while draining (the batch was in flight)', 'draining', 2],
    ['not while paused', 'paused', 0],
  ])('bisection runs use their own slots %s', (_name, status, expected) => {
    const q = new Harness({ batch: true, batchingMinSize: 4, concurrency: 1, bisectionConcurrency: 2 });
    [1, 2, 3, 4].forEach((pr) => q.submit(pr));
    q.send({ type: 'configUpdated', patch: {}, state: status });
    q.fail(1);
    expect(q.runs()).toHaveLength(expected);
    expect(q.commandsOf('startTestRun').filter((c) => c.bisection)).toHaveLength(expected);
  });

  it('does not count bisection runs against the main slots', () => {
    const q = new Harness({
      mode: 'parallel',
      batch: true,
      batchingMinSize: 2,
      concurrency: 1,
      bisectionConcurrency: 1,
    });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['a'] });
    q.fail(1);
    q.submit(3, { targets: ['b'], noBatch: true });
    expect(q.batches()).toEqual([[1], [3]]);
  });
});
