import { Harness } from './harness';

describe('admission and readiness', () => {
  it('keeps a submission not ready until its workflow reports it ready', () => {
    const q = new Harness();
    q.submit(1, { ready: false });
    expect(q.stateOf(1)).toBe('not_ready');
    q.send({ type: 'ready', pr: 1, headSha: 'head-1', baseSha: null });
    expect(q.timeline(1)).toEqual([
      'not_ready:API_REQUESTED',
      'pending:MERGE_ITEM_NOW_READY',
      'testing:TEST_RUN_STARTED',
    ]);
  });

  it.each<[string, string[] | 'ALL' | null, string, string]>([
    ['no targets uploaded', null, 'head-1', 'not_ready'],
    ['targets for an older head', ['api'], 'head-0', 'not_ready'],
    ['targets for the current head', ['api'], 'head-1', 'testing'],
    ['ALL for the current head', 'ALL', 'head-1', 'testing'],
    ['an empty list for the current head', [], 'head-1', 'testing'],
  ])(
    'parallel mode admits only with impacted targets for the current head: %s',
    (_name, targets, sha, expected) => {
      const q = new Harness({ mode: 'parallel' });
      q.submit(1);
      if (targets !== null) q.send({ type: 'impactedTargetsSet', pr: 1, headSha: sha, targets });
      expect(q.stateOf(1)).toBe(expected);
    },
  );

  it('ignores targets for a PR that is not in the queue', () => {
    const q = new Harness({ mode: 'parallel' });
    const before = q.state;
    expect(q.targets(9, ['api'])).toEqual([]);
    expect(q.state).toEqual(before);
  });

  it('sends a PR that stops being ready back to not_ready and restarts the runs built on it', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.send({ type: 'notReady', pr: 2, reason: 'AWAITING_MERGEABILITY' });
    expect(q.stateOf(2)).toBe('not_ready');
    expect(q.runs()).toEqual([[1], [1, 3]]);
    expect(q.lastReason(3)).toBe('TEST_RUN_STARTED');
    expect(q.timeline(3)).toContain('pending:PREREQUISITE_NOT_READY');
  });

  it('treats a new head as a new change: out of the line, then placed again once ready', () => {
    const q = new Harness({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.send({ type: 'ready', pr: 1, headSha: 'head-1b', baseSha: null });
    expect(q.timeline(1).slice(-3)).toEqual([
      'not_ready:PR_HEAD_CHANGED',
      'pending:MERGE_ITEM_NOW_READY',
      'testing:TEST_RUN_STARTED',
    ]);
    expect(q.runs()).toEqual([[2], [2, 1]]);
  });

  it('applies a head pushed during the PR’s merge only once the merge is over', () => {
    const q = new Harness({ concurrency: 1 });
    q.submit(1);
    q.pass(1);
    const merge = q.state.merge!;
    q.send({ type: 'ready', pr: 1, headSha: 'head-1b', baseSha: null });
    expect(q.stateOf(1)).toBe('tests_passed');
    q.send({
      type: 'mergeFailed',
      mergeId: merge.mergeId,
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      pr: 2,
      mergedPrs: [],
      tipSha: null,
    });
    expect(q.state.entries[0]).toMatchObject({ headSha: 'head-1b', newHeadSha: null, state: 'testing' });
    expect(q.timeline(1)).toContain('not_ready:PR_HEAD_CHANGED');
  });

  it('restarts only the runs whose tree changes when impacted targets change', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 3 });
    q.submit(1, { targets: ['api'] });
    q.submit(2, { targets: ['web'] });
    q.submit(3, { targets: ['api'] });
    expect(q.runs()).toEqual([[1], [2], [1, 3]]);
    q.targets(1, ['api']);
    expect(q.commandsOf('cancelTestRun')).toEqual([]);
    q.targets(1, ['web']);
    expect(q.runs()).toEqual([[1], [1, 2], [3]]);
    expect(q.timeline(2)).toContain('pending:IMPACTED_TARGETS_CHANGED');
    expect(q.timeline(3)).toContain('pending:IMPACTED_TARGETS_CHANGED');
  });
});
