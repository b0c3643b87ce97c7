import { presenceAt } from '../../../../flaky/classification/stale';

describe('staleness', () => {
  test.each([
    [[], 100, 'never_ran'],
    [[10], 10, 'never_ran'],
    [[10], 11, 'running'],
    [[10], 110, 'running'],
    [[10], 111, 'stale'],
    [[10, 200], 150, 'stale'],
    [[10, 200], 201, 'running'],
  ] as const)('ran at %j, seen at %i: %s', (ran, now, expected) => {
    expect(presenceAt(ran, 100, now)).toBe(expected);
  });
});
