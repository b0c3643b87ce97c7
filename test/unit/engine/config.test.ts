import {
  applyConfigPatch,
  DEFAULT_CONFIG,
  DEFAULT_FLAKY_RETRIES,
  flakyRetriesOf,
  MAX_FLAKY_RETRIES,
  queueConfig,
  type QueueConfigPatch,
} from '../../../engine';

describe('queue config', () => {
  it("defaults to Trunk's API defaults", () => {
    expect(queueConfig()).toEqual({
      mode: 'single',
      concurrency: 1,
      bisectionConcurrency: 1,
      batch: false,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 5,
      optimizationMode: 'off',
      canOptimisticallyMerge: false,
      pendingFailureDepth: 0,
      directMergeMode: 'off',
      testingTimeoutMinutes: 300,
      mergeMethod: 'squash',
      speculationThreshold: 0.25,
    });
  });

  it.each<[string, QueueConfigPatch, number]>([
    ['follows concurrency when not given', { concurrency: 6 }, 6],
    ['keeps an explicit value', { concurrency: 6, bisectionConcurrency: 2 }, 2],
  ])('bisection concurrency %s', (_name, patch, expected) => {
    expect(queueConfig(patch).bisectionConcurrency).toBe(expected);
  });

  it.each<[string, QueueConfigPatch, Partial<typeof DEFAULT_CONFIG>]>([
    ['concurrency 0 becomes 1', { concurrency: 0 }, { concurrency: 1 }],
    ['negative depth becomes 0', { pendingFailureDepth: -3 }, { pendingFailureDepth: 0 }],
    ['fractions are rounded', { batchingMinSize: 2.6 }, { batchingMinSize: 3 }],
    ['NaN falls to the minimum', { concurrency: Number.NaN }, { concurrency: 1 }],
    [
      'an undefined field keeps its value',
      { concurrency: undefined, batch: true },
      { concurrency: 1, batch: true },
    ],
    ['timeout 0 stays off', { testingTimeoutMinutes: 0 }, { testingTimeoutMinutes: 0 }],
    ['a threshold above 1 becomes 1', { speculationThreshold: 1.5 }, { speculationThreshold: 1 }],
    ['a negative threshold becomes 0 (none)', { speculationThreshold: -1 }, { speculationThreshold: 0 }],
    // Issue 28: flaky retries are capped, and 0 turns them off.
    ['flaky retries past the cap become the cap', { flakyRetries: 9 }, { flakyRetries: MAX_FLAKY_RETRIES }],
    ['negative flaky retries become 0 (off)', { flakyRetries: -1 }, { flakyRetries: 0 }],
    ['fractional flaky retries are rounded', { flakyRetries: 1.6 }, { flakyRetries: 2 }],
  ])('a patch is normalised: %s', (_name, patch, expected) => {
    expect(applyConfigPatch(DEFAULT_CONFIG, patch)).toMatchObject(expected);
  });

  it('reads absent flaky retries as the default, and keeps the state of a queue that never set them', () => {
    expect(queueConfig()).not.toHaveProperty('flakyRetries');
    expect(flakyRetriesOf(queueConfig())).toBe(DEFAULT_FLAKY_RETRIES);
    expect(flakyRetriesOf(queueConfig({ flakyRetries: 0 }))).toBe(0);
  });
});
