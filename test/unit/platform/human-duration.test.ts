/**
 * humanDuration: limits read as they were set (whole hours and minutes exactly), measured times in at
 * most two units, and nothing a person has to divide (issue 29: `timeout 18000000 ms`).
 */
import { humanDuration } from '../../../platform/human-duration';

it.each([
  [0, '0 ms'],
  [600, '600 ms'],
  [999.4, '999 ms'],
  [999.6, '1 s'],
  [1_000, '1 s'],
  [2_450, '2.5 s'],
  [9_960, '10 s'],
  [42_300, '42 s'],
  [59_700, '1 min'],
  [60_000, '1 min'],
  [90_000, '1 min 30 s'],
  [3_599_600, '1 h'],
  [5 * 3_600_000, '5 h'],
  [90 * 60_000, '1 h 30 min'],
  [3_640_000, '1 h 1 min'],
  [24 * 3_600_000, '24 h'],
  [525_600 * 60_000, '8760 h'],
])('%d ms reads "%s"', (ms, text) => {
  expect(humanDuration(ms)).toBe(text);
});

it('refuses what is not a duration, naming it', () => {
  expect(() => humanDuration(-1)).toThrow('a duration must be a finite number ≥ 0, got -1');
  expect(() => humanDuration(Number.NaN)).toThrow(/got NaN/);
});
