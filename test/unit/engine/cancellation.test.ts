import { Harness } from './harness';

describe('cancellation', () => {
  it('cancels a PR and restarts the runs built on it', () => {
    const q = new Harness({ concurrency: 3 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.send({ type: 'cancelled', pr: 1, reason: 'PR_CLOSED' });
    expect(q.timeline(1).at(-1)).toBe('cancelled:PR_CLOSED');
    expect(q.runs()).toEqual([[2], [2, 3]]);
    expect(q.timeline(3)).toContain('pending:PREREQUISITE_MERGE_ITEM_CANCELLED');
    expect(q.state.entries.map((e) => e.pr)).toEqual([2, 3]);
  });

  it('re-forms the batch of a cancelled PR without it', () => {
    const q = new Harness({ batch: true, batchingMinSize: 3 });
    [1, 2, 3].forEach((pr) => q.submit(pr));
    q.send({ type: 'cancelled', pr: 2, reason: 'USER_REQUESTED' });
    expect(q.batches()).toEqual([[1, 3]]);
  });

  it('cancels a not-ready PR', () => {
    const q = new Harness();
    q.submit(1, { ready: false });
    q.send({ type: 'cancelled', pr: 1, reason: 'PR_CONVERTED_TO_DRAFT' });
    expect(q.timeline(1)).toEqual(['not_ready:API_REQUESTED', 'cancelled:PR_CONVERTED_TO_DRAFT']);
  });

  it.each<[string, (q: Harness) => void]>([
    ['a PR that is being merged', (q) => q.pass(1)],
    ['a PR not in the queue', (q) => q.send({ type: 'cancelled', pr: 1, reason: 'USER_REQUESTED' })],
  ])('ignores cancelling %s', (_name, before) => {
    const q = new Harness();
    q.submit(1);
    before(q);
    const state = q.state;
    expect(q.send({ type: 'cancelled', pr: 1, reason: 'USER_REQUESTED' })).toEqual([]);
    expect(q.state).toEqual(state);
  });
});
