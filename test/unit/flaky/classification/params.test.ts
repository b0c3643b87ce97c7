import {
  capStoredOverrides,
  CLASSIFICATION_BOUNDS,
  ClassificationParamsError,
  DEFAULT_CLASSIFICATION_PARAMS,
  resolveClassificationParams,
  type RepositoryClassificationOverrides,
} from '../../../../flaky/classification';

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
      'The classification parameter rateMinAttempts must be a whole number from 1 to 10000.',
    ],
    [
      { brokenConsecutiveCommits: 0 },
      'The classification parameter brokenConsecutiveCommits must be a whole number from 1 to 100.',
    ],
    [
      { staleDays: -1 },
      'The classification parameter staleDays must be a number greater than 0 and at most 180.',
    ],
    [
      { rateWindowHours: Number.POSITIVE_INFINITY },
      'The classification parameter rateWindowHours must be a number greater than 0 and at most 720.',
    ],
    // Past the upper bounds: each of these runs in the sweep, the uploads or the list pages.
    [
      { staleDays: 181 },
      'The classification parameter staleDays must be a number greater than 0 and at most 180.',
    ],
    [
      { mixedLookbackDays: 31 },
      'The classification parameter mixedLookbackDays must be a number greater than 0 and at most 30.',
    ],
    [
      { recoverDays: 91 },
      'The classification parameter recoverDays must be a number greater than 0 and at most 90.',
    ],
    [
      { brokenRateWindowHours: 1e9 },
      'The classification parameter brokenRateWindowHours must be a number greater than 0 and at most 720.',
    ],
    [
      { failureWindowDays: 365 },
      'The classification parameter failureWindowDays must be a number greater than 0 and at most 90.',
    ],
    [{ topFailures: 101 }, 'The classification parameter topFailures must be a whole number from 1 to 100.'],
    [
      { recoverPasses: 10_001 },
      'The classification parameter recoverPasses must be a whole number from 1 to 10000.',
    ],
    [
      { infraMinResults: 1e12 },
      'The classification parameter infraMinResults must be a whole number from 1 to 100000.',
    ],
    [
      { rateMinAttempts: '20' } as unknown as RepositoryClassificationOverrides,
      'The classification parameter rateMinAttempts must be a whole number from 1 to 10000.',
    ],
    [{ stableBranches: [''] }, 'The classification parameter stableBranches must be a list of branch names.'],
    [
      { mergeQueueBranchPrefixes: [''] },
      'The classification parameter mergeQueueBranchPrefixes must be a list of non-empty prefixes.',
    ],
  ])('refuses %j', (overrides, message) => {
    expect(() => resolveClassificationParams(overrides)).toThrow(new ClassificationParamsError(message));
  });

  test('every numeric parameter has a range, and its default is inside it', () => {
    for (const [key, bound] of Object.entries(CLASSIFICATION_BOUNDS)) {
      const value = DEFAULT_CLASSIFICATION_PARAMS[key as keyof typeof CLASSIFICATION_BOUNDS];
      expect([key, value <= (bound.kind === 'ratio' ? 1 : bound.max)]).toEqual([key, true]);
      expect(() => resolveClassificationParams({ [key]: value })).not.toThrow();
    }
    const numeric = Object.entries(DEFAULT_CLASSIFICATION_PARAMS).filter(([, v]) => typeof v === 'number');
    expect(Object.keys(CLASSIFICATION_BOUNDS).sort()).toEqual(numeric.map(([k]) => k).sort());
  });

  test('the upper bounds themselves are accepted', () => {
    expect(
      resolveClassificationParams({
        staleDays: 180,
        mixedLookbackDays: 30,
        recoverDays: 90,
        topFailures: 100,
      }),
    ).toMatchObject({ staleDays: 180, topFailures: 100 });
  });

  test('a stored number past its upper bound is read at the bound; other bad values still fail', () => {
    expect(
      resolveClassificationParams(capStoredOverrides({ staleDays: 3650, topFailures: 500 })),
    ).toMatchObject({
      staleDays: 180,
      topFailures: 100,
    });
    expect(() => resolveClassificationParams(capStoredOverrides({ staleDays: -1 }))).toThrow(
      ClassificationParamsError,
    );
    expect(() => resolveClassificationParams(capStoredOverrides({ rateOn: 2 }))).toThrow(
      ClassificationParamsError,
    );
  });
});
