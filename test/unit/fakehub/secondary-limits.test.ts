import { createWriteRateLimiter } from '../../support/fakehub/secondary-limits';

test('writes past the limit within the window are refused with the seconds until there is room', () => {
  const limiter = createWriteRateLimiter();
  expect(limiter.admit('i1', 'POST', 0)).toBeNull(); // off until set
  limiter.set({ writes: 2, windowMs: 10_000 });
  expect(limiter.admit('i1', 'POST', 0)).toBeNull();
  expect(limiter.admit('i1', 'GET', 100)).toBeNull(); // reads are not writes
  expect(limiter.admit('i1', 'PATCH', 1_000)).toBeNull();
  expect(limiter.admit('i1', 'PUT', 2_000)).toBe(8);
  expect(limiter.admit('i2', 'DELETE', 2_000)).toBeNull(); // per installation
  expect(limiter.admit('i1', 'POST', 10_001)).toBeNull(); // the first write left the window
  expect(limiter.stats()).toEqual({ refused: 1, peak: 2, accepted: 4 });
});
