/**
 * Retention of flaky-test data (docs/adr/0019-result-retention.md): how many days of raw results and
 * of rollups an organisation keeps, the bounds of those settings, and the cutoffs they give each
 * repository. Pure: the store (store/result-maintenance.ts) applies the cutoffs.
 *
 * Invariants:
 * - A repository never loses raw rows a read or its classification needs: its raw period is at least
 *   its classification history (STALE_DAYS + W_MIX + RECOVER_DAYS, 44 days by default) plus the day
 *   the cutoff is rounded down to, and the smallest setting (8 days) covers the API's 7-day windows
 *   and their partial-day edge.
 * - Rollups are kept at least as long as raw rows (the reads take whole days from them), and at
 *   least 91 days (W_FAIL, the fingerprint window, is at most 90 days).
 * - Cutoffs fall on UTC midnights, the bounds of the day partitions: a day partition is wholly past a
 *   cutoff or wholly before it.
 */

const DAY_MS = 86_400_000;

export type RetentionField = 'raw_retention_days' | 'rollup_retention_days';

export const RETENTION_BOUNDS: Readonly<Record<RetentionField, { min: number; max: number }>> = Object.freeze(
  {
    raw_retention_days: { min: 8, max: 400 },
    rollup_retention_days: { min: 91, max: 3650 },
  },
);

/** The deployment's defaults (RAILYARD_FLAKY_RAW_RETENTION_DAYS, RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS). */
export const DEFAULT_RAW_RETENTION_DAYS = 90;
export const DEFAULT_ROLLUP_RETENTION_DAYS = 400;

export interface RetentionDefaults {
  readonly rawDays: number;
  readonly rollupDays: number;
}

export const DEFAULT_RETENTION: RetentionDefaults = Object.freeze({
  rawDays: DEFAULT_RAW_RETENTION_DAYS,
  rollupDays: DEFAULT_ROLLUP_RETENTION_DAYS,
});

/** An organisation's stored settings; null is "the default". */
export interface RetentionSettings {
  readonly rawDays: number | null;
  readonly rollupDays: number | null;
}

/** A bad setting, with one sentence naming the field. */
export class RetentionSettingsError extends Error {
  override readonly name = 'RetentionSettingsError';
  constructor(
    readonly field: RetentionField,
    message: string,
  ) {
    super(message);
  }
}

/** A setting as given (a number, or text from a command line); throws RetentionSettingsError. */
export function checkRetentionDays(field: RetentionField, value: unknown): number {
  const { min, max } = RETENTION_BOUNDS[field];
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new RetentionSettingsError(field, `Field '${field}' must be a whole number of days.`);
  if (n < min) throw new RetentionSettingsError(field, `Field '${field}' must be at least ${min} days.`);
  if (n > max) throw new RetentionSettingsError(field, `Field '${field}' must be at most ${max} days.`);
  return n;
}

/**
 * Settings as they will be stored: each number within its bounds, and the rollups kept at least as
 * long as the raw rows (comparing the values that apply, defaults included).
 */
export function checkRetentionSettings(
  settings: RetentionSettings,
  defaults: RetentionDefaults,
): RetentionSettings {
  const rawDays =
    settings.rawDays === null ? null : checkRetentionDays('raw_retention_days', settings.rawDays);
  const rollupDays =
    settings.rollupDays === null ? null : checkRetentionDays('rollup_retention_days', settings.rollupDays);
  const raw = rawDays ?? defaults.rawDays;
  const rollup = rollupDays ?? defaults.rollupDays;
  if (rollup < raw)
    throw new RetentionSettingsError(
      'rollup_retention_days',
      `Field 'rollup_retention_days' must be at least raw_retention_days (${raw} days): rollups are kept longer than raw results.`,
    );
  return { rawDays, rollupDays };
}

export interface EffectiveRetention {
  /** Days of raw results the repository keeps. */
  readonly rawDays: number;
  /** Days of rollups (day rollups, failure fingerprints, PR failures). */
  readonly rollupDays: number;
}

/**
 * What a repository keeps: its organisation's settings (or the defaults), raised to what its
 * classification needs (`historyDays`, from its parameters) so no rule ever reads a deleted row.
 */
export function effectiveRetention(
  settings: RetentionSettings,
  defaults: RetentionDefaults,
  historyDays: number,
): EffectiveRetention {
  const rawDays = Math.max(settings.rawDays ?? defaults.rawDays, historyDays + 1);
  const rollupDays = Math.max(settings.rollupDays ?? defaults.rollupDays, rawDays);
  return { rawDays, rollupDays };
}

export interface Cutoffs {
  /** Raw results with `at` before this UTC midnight are past retention. */
  readonly resultsBefore: Date;
  /** Rollup days before this one (`YYYY-MM-DD`) are past retention. */
  readonly rollupsBefore: string;
}

export function cutoffsOf(retention: EffectiveRetention, now: Date): Cutoffs {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return {
    resultsBefore: new Date(today - retention.rawDays * DAY_MS),
    rollupsBefore: new Date(today - retention.rollupDays * DAY_MS).toISOString().slice(0, 10),
  };
}
