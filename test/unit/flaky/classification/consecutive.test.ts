import { ConsecutiveFailingCommits } from '../../../../flaky/classification/consecutive';

const feed = (spec: string): boolean => {
  const tracker = new ConsecutiveFailingCommits(3);
  // "a:F" = a result on commit a that failed.
  for (const [i, item] of spec.split(' ').entries()) {
    const [commitSha, outcome] = item.split(':');
    tracker.add({ atMs: i, failed: outcome === 'F', commitSha: commitSha!, branchClass: 'stable' });
  }
  return tracker.active;
};

describe('S3 consecutive failing commits', () => {
  test.each([
    ['a:F b:F c:F', true],
    ['a:F b:F', false],
    ['a:F b:F c:F d:P', false],
    ['a:F b:F c:F c:P', false],
    ['a:P b:F c:F d:F', true],
    ['a:F a:P b:F c:F', false],
    ['a:F b:F c:F a:F', true],
    ['a:F b:F c:P b:F a:F', false],
  ])('%s → %s', (spec, expected) => {
    expect(feed(spec)).toBe(expected);
  });

  test('reset forgets the run', () => {
    const tracker = new ConsecutiveFailingCommits(2);
    tracker.add({ atMs: 0, failed: true, commitSha: 'a', branchClass: 'stable' });
    tracker.reset();
    tracker.add({ atMs: 1, failed: true, commitSha: 'b', branchClass: 'stable' });
    expect(tracker.active).toBe(false);
  });
});
