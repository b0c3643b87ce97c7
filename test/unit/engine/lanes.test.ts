import { targetsIntersect, type TargetList } from '../../../engine';
import { Harness } from './harness';

describe('lanes', () => {
  it.each<[string, TargetList, TargetList, boolean]>([
    ['ALL and ALL', 'ALL', 'ALL', true],
    ['ALL and a target', 'ALL', ['api'], true],
    ['ALL and nothing', 'ALL', [], false],
    ['nothing and nothing', [], [], false],
    ['shared target', ['api', 'web'], ['web'], true],
    ['disjoint targets', ['api'], ['web'], false],
  ])('targets intersect: %s', (_name, a, b, expected) => {
    expect(targetsIntersect(a, b)).toBe(expected);
    expect(targetsIntersect(b, a)).toBe(expected);
  });

  it.each<[string, [number, TargetList][], number[][]]>([
    [
      "Trunk's example: C is tested on A + B, D alone",
      [
        [1, ['frontend']],
        [2, ['backend']],
        [3, ['frontend', 'backend']],
        [4, ['docs']],
      ],
      [[1], [2], [1, 2, 3], [4]],
    ],
    [
      'dependencies are transitive',
      [
        [1, ['a']],
        [2, ['a', 'b']],
        [3, ['b']],
      ],
      [[1], [1, 2], [1, 2, 3]],
    ],
    [
      'ALL depends on everything ahead and everything behind depends on it',
      [
        [1, ['a']],
        [2, ['b']],
        [3, 'ALL'],
        [4, ['c']],
      ],
      [[1], [2], [1, 2, 3], [1, 2, 3, 4]],
    ],
    [
      'an empty list is independent, even of ALL',
      [
        [1, 'ALL'],
        [2, []],
        [3, ['a']],
      ],
      [[1], [2], [1, 3]],
    ],
  ])('each PR is tested on exactly its dependencies: %s', (_name, prs, expected) => {
    const q = new Harness({ mode: 'parallel', concurrency: 10 });
    for (const [pr, targets] of prs) q.submit(pr, { targets });
    expect(q.runs()).toEqual(expected);
  });

  it('gives a free slot to the least speculative PR: an idle lane before a deeper stack', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 1 });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['a'] });
    q.submit(3, { targets: ['b'] });
    expect(q.runs()).toEqual([[1]]);
    q.send({ type: 'configUpdated', patch: { concurrency: 2 } });
    expect(q.runs()).toEqual([[1], [3]]);
  });

  it('merges a lane that another lane merged under by rebasing, not by moving to its tested commit', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 2 });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['b'] });
    q.pass(2);
    expect(q.state.merge).toMatchObject({ prs: [2], via: 'tested_commit' });
    q.completeMerge();
    q.pass(1);
    expect(q.state.merge).toMatchObject({ prs: [1], via: 'rebase' });
  });

  it('retests a run another lane merged under once its targets change (disjointness no longer holds)', () => {
    const q = new Harness({ mode: 'parallel', concurrency: 2 });
    q.submit(1, { targets: ['a'] });
    q.submit(2, { targets: ['b'] });
    q.pass(1);
    q.completeMerge();
    const before = q.runOf(2);
    q.targets(2, ['a']);
    expect(q.timeline(2)).toContain('pending:IMPACTED_TARGETS_CHANGED');
    expect(q.runOf(2)).not.toBe(before);
    expect(q.runs()).toEqual([[2]]);
  });
});
