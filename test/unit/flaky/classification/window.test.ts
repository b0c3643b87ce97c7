import { countInWindow, FailureSeries, lowerBound } from '../../../../flaky/classification/window';

describe('half-open windows', () => {
  const times = [10, 20, 20, 30];

  test.each([
    [0, 0],
    [10, 0],
    [11, 1],
    [20, 1],
    [21, 3],
    [99, 4],
  ])('lowerBound(%i) = %i', (target, expected) => {
    expect(lowerBound(times, target)).toBe(expected);
  });

  test.each([
    [10, 30, 3],
    [10, 31, 4],
    [20, 21, 2],
    [31, 40, 0],
    [30, 10, 0],
  ])('[%i, %i) holds %i results', (from, to, expected) => {
    expect(countInWindow(times, from, to)).toBe(expected);
  });

  test('reads attempts, failures and rate in a window', () => {
    const series = new FailureSeries([
      { atMs: 1, failed: true },
      { atMs: 2, failed: false },
      { atMs: 3, failed: true },
      { atMs: 4, failed: false },
    ]);
    expect(series.read(1, 5)).toEqual({ attempts: 4, failures: 2, rate: 0.5 });
    expect(series.read(2, 4)).toEqual({ attempts: 2, failures: 1, rate: 0.5 });
    expect(series.read(5, 9)).toEqual({ attempts: 0, failures: 0, rate: 0 });
  });
});
