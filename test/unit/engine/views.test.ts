import {
  allPullRequests,
  enqueuedPullRequests,
  isInQueue,
  pullRequestView,
  testRunView,
} from '../../../engine';
import { Harness } from './harness';

describe('views', () => {
  it('lists the enqueued PRs in queue order without the not-ready ones', () => {
    const q = new Harness({ concurrency: 1 });
    q.submit(1);
    q.submit(2, { priority: 200, noBatch: true });
    q.submit(3, { ready: false });
    q.submit(4, { priority: 0 });
    expect(enqueuedPullRequests(q.state).map((v) => [v.pr, v.state, v.position, v.priorityName])).toEqual([
      [4, 'testing', 0, 'urgent'],
      [1, 'pending', 1, 'medium'],
      [2, 'pending', 2, 'low'],
    ]);
    expect(allPullRequests(q.state).map((v) => v.pr)).toEqual([4, 1, 2, 3]);
    expect(pullRequestView(q.state, 2)).toMatchObject({
      priorityValue: 200,
      noBatch: true,
      skipTheLine: false,
      testRunId: null,
    });
    expect(pullRequestView(q.state, 4)).toMatchObject({ skipTheLine: true, reason: 'TEST_RUN_STARTED' });
    expect(pullRequestView(q.state, 3)).toMatchObject({ state: 'not_ready', position: null });
    expect([isInQueue(q.state, 3), isInQueue(q.state, 9)]).toEqual([true, false]);
  });

  it('describes a test run: its PRs, the PRs under them, and its status', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    const runId = q.runOf(2);
    expect(testRunView(q.state, runId)).toEqual({
      testRunId: runId,
      prs: [2],
      ahead: [1],
      bisection: false,
      status: 'in_progress',
      baseSha: 'tip-0',
      startedAt: q.now,
      exact: true,
    });
    q.pass(2);
    expect(testRunView(q.state, runId)?.status).toBe('succeeded');
    expect(testRunView(q.state, 'unknown')).toBeNull();
  });
});
