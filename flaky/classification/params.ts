/**
 * The classifier's named parameters, with the defaults of flaky-detection.md §5 (the doc's symbol
 * is in each field's comment). Repositories override any subset; `resolveClassificationParams`
 * validates the result so a bad setting is refused when it is saved, not when a test is judged.
 */

export interface ClassificationParams {
  /** W_MIX: a pass and a fail of one commit count as disagreement when this close together. */
  readonly mixedLookbackDays: number;
  /** W_RATE: stable-set failure-rate window. */
  readonly rateWindowHours: number;
  /** N_MIN: attempts needed in the window before the rate decides anything. */
  readonly rateMinAttempts: number;
  /** R_ON: rate at or above which the test is flaky. */
  readonly rateOn: number;
  /** R_OFF: rate below which the rate signal clears (hysteresis). */
  readonly rateOff: number;
  /** K_BROKEN: consecutive stable-set commits with only failures that make a test broken. */
  readonly brokenConsecutiveCommits: number;
  /** W_BRK: window of the broken-rate rule. */
  readonly brokenRateWindowHours: number;
  /** N_BRK: attempts needed in that window. */
  readonly brokenRateMinAttempts: number;
  /** R_BRK: failure rate at or above which the test is broken. */
  readonly brokenRateOn: number;
  /** R_BRK_OFF: rate below which the broken-rate signal clears. */
  readonly brokenRateOff: number;
  /** RECOVER_DAYS: quiet time after the last disagreement before it can heal. */
  readonly recoverDays: number;
  /** RECOVER_PASSES: passes after the last disagreement needed to heal. */
  readonly recoverPasses: number;
  /** STALE_DAYS: with no non-skipped result for this long the test is healthy, reason `stale`. */
  readonly staleDays: number;
  /** INFRA_RATIO: an upload with at least this share of failures is excluded… */
  readonly infraFailureRatio: number;
  /** INFRA_MIN: …when it has at least this many non-skipped results. */
  readonly infraMinResults: number;
  /** TOP_FAILURES: size of `most_common_failures`. */
  readonly topFailures: number;
  /** W_FAIL: window of `most_common_failures`. */
  readonly failureWindowDays: number;
  /** D3: branch names whose results are "stable". */
  readonly stableBranches: readonly string[];
  /** D3: branch-name prefixes of merge-queue test branches. */
  readonly mergeQueueBranchPrefixes: readonly string[];
}

export type RepositoryClassificationOverrides = Partial<ClassificationParams>;

export const DEFAULT_CLASSIFICATION_PARAMS: ClassificationParams = Object.freeze({
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
  stableBranches: Object.freeze(['main', 'master']),
  mergeQueueBranchPrefixes: Object.freeze(['railyard-merge/', 'trunk-merge/', 'gh-readonly-queue/', 'gtmq_']),
});

export class ClassificationParamsError extends Error {
  override readonly name = 'ClassificationParamsError';
}

export type NumberKey = {
  [K in keyof ClassificationParams]: ClassificationParams[K] extends number ? K : never;
}[keyof ClassificationParams];

/**
 * How far a repository may move each numeric parameter. Every one runs in shared code (the hourly
 * sweep, uploads, the list pages), so each has an upper bound as well: the history a sweep reads per
 * test is staleDays + mixedLookbackDays + recoverDays (at most 300 days), the rate windows are at
 * most 30 days, the failure window 90 days, and topFailures sizes every answer's most_common_failures.
 */
export type NumberBound =
  | { readonly kind: 'ratio' }
  | { readonly kind: 'count'; readonly max: number }
  | { readonly kind: 'duration'; readonly max: number };

const RATIO: NumberBound = { kind: 'ratio' };
const count = (max: number): NumberBound => ({ kind: 'count', max });
const duration = (max: number): NumberBound => ({ kind: 'duration', max });

export const CLASSIFICATION_BOUNDS: Readonly<Record<NumberKey, NumberBound>> = Object.freeze({
  mixedLookbackDays: duration(30),
  rateWindowHours: duration(720),
  rateMinAttempts: count(10_000),
  rateOn: RATIO,
  rateOff: RATIO,
  brokenConsecutiveCommits: count(100),
  brokenRateWindowHours: duration(720),
  brokenRateMinAttempts: count(10_000),
  brokenRateOn: RATIO,
  brokenRateOff: RATIO,
  recoverDays: duration(90),
  recoverPasses: count(10_000),
  staleDays: duration(180),
  infraFailureRatio: RATIO,
  infraMinResults: count(100_000),
  topFailures: count(100),
  failureWindowDays: duration(90),
});

/** The bounds as JSON Schema keywords, for the API document. */
export function jsonSchemaBounds(bound: NumberBound): Record<string, number | string> {
  switch (bound.kind) {
    case 'ratio':
      return { minimum: 0, maximum: 1 };
    case 'count':
      return { type: 'integer', minimum: 1, maximum: bound.max };
    case 'duration':
      return { exclusiveMinimum: 0, maximum: bound.max };
  }
}

function withinBound(value: number, bound: NumberBound): boolean {
  switch (bound.kind) {
    case 'ratio':
      return value >= 0 && value <= 1;
    case 'count':
      return Number.isInteger(value) && value >= 1 && value <= bound.max;
    case 'duration':
      return value > 0 && value <= bound.max;
  }
}

function boundText(bound: NumberBound): string {
  switch (bound.kind) {
    case 'ratio':
      return 'a number from 0 to 1';
    case 'count':
      return `a whole number from 1 to ${bound.max}`;
    case 'duration':
      return `a number greater than 0 and at most ${bound.max}`;
  }
}

const NUMBER_KEYS = Object.keys(CLASSIFICATION_BOUNDS) as NumberKey[];

/** Defaults overlaid with a repository's overrides, checked; throws ClassificationParamsError. */
export function resolveClassificationParams(
  overrides: RepositoryClassificationOverrides = {},
): ClassificationParams {
  const params: ClassificationParams = { ...DEFAULT_CLASSIFICATION_PARAMS, ...stripUndefined(overrides) };
  for (const key of NUMBER_KEYS) {
    const bound = CLASSIFICATION_BOUNDS[key];
    check(key, typeof params[key] === 'number' && withinBound(params[key], bound), boundText(bound));
  }
  check('rateOff', params.rateOff <= params.rateOn, 'at most rateOn');
  check('brokenRateOff', params.brokenRateOff <= params.brokenRateOn, 'at most brokenRateOn');
  check(
    'stableBranches',
    Array.isArray(params.stableBranches) &&
      params.stableBranches.every((b) => typeof b === 'string' && b !== ''),
    'a list of branch names',
  );
  check(
    'mergeQueueBranchPrefixes',
    Array.isArray(params.mergeQueueBranchPrefixes) &&
      params.mergeQueueBranchPrefixes.every((p) => typeof p === 'string' && p !== ''),
    'a list of non-empty prefixes',
  );
  return params;
}

/**
 * Stored overrides as they are applied: a number saved before its upper bound existed is read at
 * the bound (the settings answer shows it under `effective_classification`), so an older setting
 * keeps its repository working. Anything else out of range is left for resolveClassificationParams
 * to refuse.
 */
export function capStoredOverrides(
  stored: RepositoryClassificationOverrides,
): RepositoryClassificationOverrides {
  const capped: { -readonly [K in keyof ClassificationParams]?: ClassificationParams[K] } = { ...stored };
  for (const key of NUMBER_KEYS) {
    const bound = CLASSIFICATION_BOUNDS[key];
    const value: unknown = stored[key];
    if (bound.kind !== 'ratio' && typeof value === 'number' && value > bound.max) capped[key] = bound.max;
  }
  return capped;
}

function check(key: keyof ClassificationParams, ok: boolean, expected: string): void {
  if (!ok) throw new ClassificationParamsError(`The classification parameter ${key} must be ${expected}.`);
}

function stripUndefined(overrides: RepositoryClassificationOverrides): RepositoryClassificationOverrides {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
