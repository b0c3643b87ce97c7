import { rateStep } from '../../../../flaky/classification/rates';

const threshold = { minAttempts: 20, on: 0.1, off: 0.05 };
const reading = (attempts: number, failures: number) => ({
  attempts,
  failures,
  rate: attempts === 0 ? 0 : failures / attempts,
});

describe('rate rules with minimum sample and hysteresis (S2, S4)', () => {
  test.each([
    ['off, enough attempts, at R_ON', false, reading(20, 2), true],
    ['off, enough attempts, below R_ON', false, reading(20, 1), false],
    ['off, too few attempts, all failing', false, reading(19, 19), false],
    ['on, rate between R_OFF and R_ON', true, reading(40, 3), true],
    ['on, rate exactly R_OFF', true, reading(40, 2), true],
    ['on, rate below R_OFF', true, reading(41, 2), false],
    ['on, too few attempts to judge', true, reading(3, 0), true],
    ['on, no attempts at all', true, reading(0, 0), true],
  ])('%s', (_name, active, r, expected) => {
    expect(rateStep(active, r, threshold)).toBe(expected);
  });

  test('activation can be vetoed (S4 with same-commit evidence) but an active signal is not', () => {
    expect(rateStep(false, reading(20, 20), threshold, false)).toBe(false);
    expect(rateStep(true, reading(20, 20), threshold, false)).toBe(true);
  });
});
