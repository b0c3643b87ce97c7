/**
 * The retention rules (flaky/retention.ts): bounds with a sentence naming the field, rollups never
 * shorter than raw results, a repository's raw period raised to its classification history, and
 * cutoffs on UTC midnights.
 */
import {
  checkRetentionDays,
  checkRetentionSettings,
  cutoffsOf,
  DEFAULT_RETENTION,
  effectiveRetention,
  RetentionSettingsError,
} from '../../../flaky/retention';

test('a setting is a whole number of days within its bounds, or a sentence naming the field', () => {
  expect(checkRetentionDays('raw_retention_days', 8)).toBe(8);
  expect(checkRetentionDays('raw_retention_days', ' 400 ')).toBe(400);
  expect(checkRetentionDays('rollup_retention_days', '3650')).toBe(3650);
  const refusal = (field: 'raw_retention_days' | 'rollup_retention_days', value: unknown) => {
    try {
      checkRetentionDays(field, value);
    } catch (err) {
      expect(err).toBeInstanceOf(RetentionSettingsError);
      expect((err as RetentionSettingsError).field).toBe(field);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };
  expect(refusal('raw_retention_days', 7)).toBe("Field 'raw_retention_days' must be at least 8 days.");
  expect(refusal('raw_retention_days', 401)).toBe("Field 'raw_retention_days' must be at most 400 days.");
  expect(refusal('rollup_retention_days', 90)).toBe(
    "Field 'rollup_retention_days' must be at least 91 days.",
  );
  for (const bad of ['', '1e2', '30 days', 1.5, NaN, null, true])
    expect(refusal('raw_retention_days', bad)).toBe(
      "Field 'raw_retention_days' must be a whole number of days.",
    );
});

test('rollups are kept at least as long as raw results, defaults included', () => {
  expect(checkRetentionSettings({ rawDays: 30, rollupDays: null }, DEFAULT_RETENTION)).toEqual({
    rawDays: 30,
    rollupDays: null,
  });
  expect(() => checkRetentionSettings({ rawDays: 300, rollupDays: 200 }, DEFAULT_RETENTION)).toThrow(
    "Field 'rollup_retention_days' must be at least raw_retention_days (300 days)",
  );
  // Against a default raised above the setting.
  expect(() =>
    checkRetentionSettings({ rawDays: null, rollupDays: 100 }, { rawDays: 120, rollupDays: 400 }),
  ).toThrow("Field 'rollup_retention_days' must be at least raw_retention_days (120 days)");
});

test('a repository keeps at least its classification history and a day; rollups at least that', () => {
  expect(effectiveRetention({ rawDays: 8, rollupDays: null }, DEFAULT_RETENTION, 44)).toEqual({
    rawDays: 45,
    rollupDays: 400,
  });
  expect(effectiveRetention({ rawDays: null, rollupDays: 91 }, DEFAULT_RETENTION, 300)).toEqual({
    rawDays: 301,
    rollupDays: 301,
  });
  expect(effectiveRetention({ rawDays: 200, rollupDays: 365 }, DEFAULT_RETENTION, 44)).toEqual({
    rawDays: 200,
    rollupDays: 365,
  });
});

test('cutoffs fall on UTC midnights, so a day partition is wholly before or after one', () => {
  const now = new Date('2026-11-27T23:59:59.999Z');
  expect(cutoffsOf({ rawDays: 45, rollupDays: 400 }, now)).toEqual({
    resultsBefore: new Date('2026-10-13T00:00:00.000Z'),
    rollupsBefore: '2025-10-23',
  });
  expect(cutoffsOf({ rawDays: 45, rollupDays: 400 }, new Date('2026-11-27T00:00:00.000Z'))).toEqual(
    cutoffsOf({ rawDays: 45, rollupDays: 400 }, now),
  );
});
