import {
  branchClassOf,
  DEFAULT_CLASSIFICATION_PARAMS as params,
  isStableSet,
} from '../../../../flaky/classification';

describe('branch class (D3)', () => {
  test.each([
    ['main', undefined, 'stable'],
    ['refs/heads/master', undefined, 'stable'],
    ['railyard-merge/pr-12/0b6f', 12, 'merge_queue'],
    ['gh-readonly-queue/main/pr-3-abc', undefined, 'merge_queue'],
    ['trunk-merge/main/1', undefined, 'merge_queue'],
    ['gtmq_123', undefined, 'merge_queue'],
    ['feature/login', 42, 'pr'],
    ['feature/login', undefined, 'other'],
    [undefined, 7, 'pr'],
    [undefined, undefined, 'other'],
    ['mainline', undefined, 'other'],
  ] as const)('%s (PR %s) is %s', (branch, pr, expected) => {
    expect(branchClassOf(branch, pr, params)).toBe(expected);
  });

  test('configured stable names are used', () => {
    expect(branchClassOf('develop', undefined, { ...params, stableBranches: ['develop'] })).toBe('stable');
  });

  test.each([
    ['stable', true],
    ['merge_queue', true],
    ['pr', false],
    ['other', false],
  ] as const)('%s is in the stable set: %s', (branchClass, expected) => {
    expect(isStableSet(branchClass)).toBe(expected);
  });
});
