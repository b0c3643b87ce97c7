import { type QueueConfigPatch } from '../../../engine';
import { Harness, type SubmitOptions } from './harness';

const always: QueueConfigPatch = { directMergeMode: 'always', concurrency: 2 };

describe('direct merge', () => {
  it.each<[string, QueueConfigPatch, [number, SubmitOptions?][], 'direct' | 'tested']>([
    ['up to date, idle queue, always: merges without a run', always, [[1, { baseSha: 'tip-0' }]], 'direct'],
    ['mode off: tested', { ...always, directMergeMode: 'off' }, [[1, { baseSha: 'tip-0' }]], 'tested'],
    ['behind the tip: tested', always, [[1, { baseSha: 'tip-old' }]], 'tested'],
    ['base unknown: tested', always, [[1]], 'tested'],
    ['a PR ahead in the line: tested', always, [[2], [1, { baseSha: 'tip-0' }]], 'tested'],
    [
      'another lane busy in parallel mode: still direct',
      { ...always, mode: 'parallel' },
      [
        [2, { targets: ['a'] }],
        [1, { baseSha: 'tip-0', targets: ['b'] }],
      ],
      'direct',
    ],
    [
      'its own lane busy in parallel mode: tested',
      { ...always, mode: 'parallel' },
      [
        [2, { targets: ['a'] }],
        [1, { baseSha: 'tip-0', targets: ['a'] }],
      ],
      'tested',
    ],
  ])('%s', (_name, config, prs, expected) => {
    const q = new Harness(config);
    for (const [pr, options] of prs) q.submit(pr, options);
    const merged = q.commandsOf('merge').some((m) => m.via === 'direct' && m.prs.includes(1));
    const tested = q.commandsOf('startTestRun').some((c) => c.prs.includes(1));
    expect(merged ? 'direct' : tested ? 'tested' : 'neither').toBe(expected);
  });

  it('ends the PR merged with MERGE_GRAPH_DIRECT_MERGE', () => {
    const q = new Harness(always);
    q.submit(1, { baseSha: 'tip-0' });
    expect(q.state.merge).toMatchObject({ prs: [1], via: 'direct', runId: null });
    q.completeMerge();
    expect(q.timeline(1)).toEqual([
      'not_ready:API_REQUESTED',
      'pending:MERGE_ITEM_NOW_READY',
      'merged:MERGE_GRAPH_DIRECT_MERGE',
    ]);
  });

  it('reports a failed direct merge with GITHUB_API_DIRECT_MERGE_PR_FAILED', () => {
    const q = new Harness(always);
    q.submit(1, { baseSha: 'tip-0' });
    q.send({
      type: 'mergeFailed',
      mergeId: q.state.merge!.mergeId,
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      pr: 1,
      mergedPrs: [],
      tipSha: null,
    });
    expect(q.timeline(1).at(-1)).toBe('failed:GITHUB_API_DIRECT_MERGE_PR_FAILED');
  });

  it('falls back to testing when the tip moved under a direct merge', () => {
    const q = new Harness(always);
    q.submit(1, { baseSha: 'tip-0' });
    q.send({
      type: 'mergeFailed',
      mergeId: q.state.merge!.mergeId,
      reason: 'TARGET_BRANCH_MOVED',
      pr: null,
      mergedPrs: [],
      tipSha: 'tip-x',
    });
    expect(q.runs()).toEqual([[1]]);
  });
});
