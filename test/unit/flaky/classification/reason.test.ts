import {
  brokenRateReason,
  consecutiveReason,
  mixedReason,
  plainReason,
  ratio,
  stableRateReason,
} from '../../../../flaky/classification/reason';

describe('reason strings (code:detail)', () => {
  test.each([
    [mixedReason('abc1234def'), 'mixed_outcomes_same_commit:sha=abc1234'],
    [
      stableRateReason({ attempts: 57, failures: 7, rate: 7 / 57 }, 20, 0.1, 0.05, 72),
      'stable_failure_rate:0.12>=0.10,n=57,w=72h',
    ],
    [
      stableRateReason({ attempts: 43, failures: 3, rate: 3 / 43 }, 20, 0.1, 0.05, 72),
      'stable_failure_rate:0.07>=0.05,n=43,w=72h',
    ],
    [
      stableRateReason({ attempts: 3, failures: 0, rate: 0 }, 20, 0.1, 0.05, 72),
      'stable_failure_rate:0.00,n=3<20,w=72h',
    ],
    [consecutiveReason(3), 'consecutive_failing_commits:3'],
    [brokenRateReason({ attempts: 6, failures: 6, rate: 1 }), 'broken_rate:1.00,n=6'],
    [plainReason('manual_flag'), 'manual_flag'],
    [plainReason('recovered'), 'recovered'],
    [plainReason('stale'), 'stale'],
  ])('%j', (reason, text) => {
    expect(reason.text).toBe(text);
    expect(text.startsWith(reason.code)).toBe(true);
  });

  test.each([
    [0.1, '0.10'],
    [0.125, '0.125'],
    [1, '1.00'],
    [0.95, '0.95'],
    [0.33333, '0.3333'],
  ])('threshold %d is shown as %s', (value, text) => {
    expect(ratio(value)).toBe(text);
  });
});
