import { type RestartReason } from '../../../engine';
import { Harness } from './harness';

/** PR 1 and PR 2 testing (2 on top of 1), then something happens to 1 or under it. */
function line(config = {}): Harness {
  const q = new Harness({ concurrency: 2, ...config });
  q.submit(1, { targets: ['a'] });
  q.submit(2, { targets: ['a'] });
  expect(q.runs()).toEqual([[1], [1, 2]]);
  return q;
}

describe('invalidation: the runs built on a change restart, naming the change', () => {
  it.each<[string, (q: Harness) => void, RestartReason]>([
    ['the PR under it failed', (q) => q.fail(1), 'PREREQUISITE_MERGE_ITEM_FAILED'],
    [
      'the PR under it was cancelled',
      (q) => q.send({ type: 'cancelled', pr: 1, reason: 'PR_CLOSED' }),
      'PREREQUISITE_MERGE_ITEM_CANCELLED',
    ],
    [
      'the PR under it stopped being ready',
      (q) => q.send({ type: 'notReady', pr: 1, reason: 'AWAITING_MERGEABILITY' }),
      'PREREQUISITE_NOT_READY',
    ],
    [
      'the PR under it was merged by hand',
      (q) => q.send({ type: 'mergedOutsideQueue', pr: 1 }),
      'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED',
    ],
    ['an urgent PR went ahead of it', (q) => q.submit(3, { priority: 0 }), 'SKIP_THE_LINE_INTERRUPTED'],
    [
      'the target branch was pushed to',
      (q) => q.send({ type: 'targetBranchMoved', sha: 'x' }),
      'MANUAL_PUSH_TO_TARGET_BRANCH',
    ],
  ])('%s', (_name, change, reason) => {
    const q = line();
    change(q);
    expect(q.timeline(2)).toContain(`pending:${reason}`);
  });

  it('impacted targets that change the tree', () => {
    const q = line({ mode: 'parallel' });
    q.targets(1, ['b']);
    expect(q.timeline(2)).toContain('pending:IMPACTED_TARGETS_CHANGED');
    expect(q.runs()).toEqual([[1], [2]]);
  });

  it('a lane run that passes while switching to single mode still merges (by rebase) before the switch', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 2 });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['b'] });
    q.send({ type: 'configUpdated', patch: { mode: 'single' } });
    q.pass(2);
    q.completeMerge();
    q.pass(1);
    // Another lane merged under it: it lands by rebase, under the parallel rules it was tested by.
    expect(q.state.merge).toMatchObject({ prs: [1], via: 'rebase' });
    expect(q.state.status).toBe('switching_modes');
    q.completeMerge();
    expect(q.timeline(1).at(-1)).toMatch(/^merged:/);
    expect(q.state.config.mode).toBe('single');
    expect(q.state.status).toBe('running');
  });

  it('a run that passes while switching modes merges before the new mode applies', () => {
    const q = new Harness({ mode: 'single' });
    q.submit(1);
    q.send({ type: 'configUpdated', patch: { mode: 'parallel' } });
    q.pass(1);
    expect(q.state.merge).toMatchObject({ prs: [1] });
    expect(q.state.config.mode).toBe('single');
    q.completeMerge();
    expect(q.timeline(1).at(-1)).toMatch(/^merged:/);
    expect(q.state.config.mode).toBe('parallel');
  });

  it('a lane that lands after its targets changed to overlap restarts the run it merged under', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 2 });
    q.submit(2, { targets: ['b'] });
    q.submit(4, { targets: ['a'] });
    q.pass(4);
    expect(q.state.merge).toMatchObject({ prs: [4] });
    q.targets(4, ['b']); // mid-merge: the landing cannot be stopped
    q.completeMerge();
    // PR 2 was tested without PR 4, which now touches `b` too: its tree cannot be vouched for.
    expect(q.timeline(2)).toContain('pending:TEST_TREE_CHANGED');
    expect(q.runs().at(-1)).toEqual([2]);
  });

  it('a run whose tree is unchanged keeps running (a restart in place below it)', () => {
    const q = line();
    const top = q.runOf(2);
    q.send({ type: 'restarted', pr: 1, reason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.runOf(2)).toBe(top);
  });
});
