import {
  ClassificationParamsError,
  DEFAULT_CLASSIFICATION_PARAMS,
  resolveClassificationParams,
} from '../../../../activities/flaky/classification';

describe('classification parameters', () => {
  test('defaults are those of flaky-detection.md §5', () => {
    expect(DEFAULT_CLASSIFICATION_PARAMS).toMatchObject({
      mixedLookbackDays: 7,
      rateWindowHours: 72,
      rateMinAttempts: 20,
      rateOn: 0.1,
      rateOff: 0.05,
      brokenConsecutiveCommits: 3,
      brokenRateWindowHours: 24,
      brokenRateMinAttempts: 5,
      brokenRateOn: 0.95,
      brokenRateOff: 0.5,
      recoverDays: 7,
      recoverPasses: 10,
      staleDays: 30,
      infraFailureRatio: 0.8,
      infraMinResults: 20,
      topFailures: 5,
      failureWindowDays: 30,
    });
  });

  test('a repository override replaces only the fields it names', () => {
    const params = resolveClassificationParams({
      rateOn: 0.2,
      stableBranches: ['trunk'],
      rateMinAttempts: undefined,
    });
    expect(params.rateOn).toBe(0.2);
    expect(params.stableBranches).toEqual(['trunk']);
    expect(params.rateMinAttempts).toBe(20);
  });

  test.each([
    [{ rateOn: 1.5 }, 'The classification parameter rateOn must be a number from 0 to 1.'],
    [{ rateOn: 0.04 }, 'The classification parameter rateOff must be at most rateOn.'],
    [{ brokenRateOff: 0.99 }, 'The classification parameter brokenRateOff must be at most brokenRateOn.'],
    [
      { rateMinAttempts: 2.5 },
      'The classification parameter rateMinAttempts must be a whole number of at least 1.',
    ],
    [
      { brokenConsecutiveCommits: 0 },
      'The classification parameter brokenConsecutiveCommits must be a whole number of at least 1.',
    ],
    [{ staleDays: -1 }, 'The classification parameter staleDays must be a positive number.'],
    [
      { rateWindowHours: Number.POSITIVE_INFINITY },
      'The classification parameter rateWindowHours must be a positive number.',
    ],
    [{ stableBranches: [''] }, 'The classification parameter stableBranches must be a list of branch names.'],
    [
      { mergeQueueBranchPrefixes: [''] },
      'The classification parameter mergeQueueBranchPrefixes must be a list of non-empty prefixes.',
    ],
  ])('refuses %j', (overrides, message) => {
    expect(() => resolveClassificationParams(overrides)).toThrow(new ClassificationParamsError(message));
  });
});
