/** Release after N consecutive clean runs: counting runs, when a release happens and when it ends. */
import fc from 'fast-check';
import {
  checkReleaseAfterCleanRuns,
  cleanRunsToRelease,
  countCleanRuns,
  RELEASE_AFTER_CLEAN_RUNS,
  releaseStep,
  type RunOutcome,
  runOutcomeOf,
} from '../../../flaky/quarantine-release';

test('a run is failed when any attempt failed (a pass on retry too), clean when it passed', () => {
  expect(runOutcomeOf({ failed: true, passed: true })).toBe('failed');
  expect(runOutcomeOf({ failed: true, passed: false })).toBe('failed');
  expect(runOutcomeOf({ failed: false, passed: true })).toBe('clean');
  expect(runOutcomeOf({ failed: false, passed: false })).toBe('skipped');
});

test.each<[number, RunOutcome[], number]>([
  [0, [], 0],
  [3, ['clean', 'clean'], 5],
  [7, ['failed'], 0],
  [7, ['clean', 'failed', 'clean'], 1],
  [2, ['skipped', 'clean', 'skipped'], 3],
  [0, ['failed', 'skipped'], 0],
])('countCleanRuns(%p, %j) = %p', (previous, runs, expected) =>
  expect(countCleanRuns(previous, runs)).toBe(expected),
);

test('counting a batch at once equals counting its runs one by one', () => {
  const run = fc.constantFrom<RunOutcome>('clean', 'failed', 'skipped');
  fc.assert(
    fc.property(fc.nat(50), fc.array(run), fc.array(run), (start, a, b) => {
      expect(countCleanRuns(countCleanRuns(start, a), b)).toBe(countCleanRuns(start, [...a, ...b]));
    }),
  );
});

describe('releaseStep', () => {
  const base = {
    quarantinedByRule: true,
    released: false,
    failed: false,
    cleanRuns: 0,
    releaseAfterCleanRuns: 3,
  };

  test.each([
    ['N clean runs release a test quarantined by rule', { cleanRuns: 3 }, { ends: false, releases: true }],
    ['fewer do not', { cleanRuns: 2 }, { ends: false, releases: false }],
    [
      'a test quarantined by a valid override (or not at all) is never released',
      { quarantinedByRule: false, cleanRuns: 100 },
      { ends: false, releases: false },
    ],
    [
      'a released test stays released while it passes',
      { released: true, cleanRuns: 9 },
      { ends: false, releases: false },
    ],
    [
      'a failure ends a release',
      { released: true, failed: true, cleanRuns: 0 },
      { ends: true, releases: false },
    ],
    [
      'a failure then N clean runs in one batch: the release ends and a new one starts',
      { released: true, failed: true, cleanRuns: 3 },
      { ends: true, releases: true },
    ],
  ])('%s', (_name, change, expected) => expect(releaseStep({ ...base, ...change })).toEqual(expected));
});

test('clean runs still needed, and the setting’s bounds', () => {
  expect(cleanRunsToRelease(5, 20)).toBe(15);
  expect(cleanRunsToRelease(25, 20)).toBe(0);
  expect(RELEASE_AFTER_CLEAN_RUNS.default).toBe(20);
  expect(checkReleaseAfterCleanRuns(1)).toBe(1);
  expect(checkReleaseAfterCleanRuns(1000)).toBe(1000);
  for (const bad of [0, 1001, 2.5, Number.NaN])
    expect(() => checkReleaseAfterCleanRuns(bad)).toThrow(
      "Field 'quarantine.release_after_clean_runs' must be a whole number from 1 to 1000.",
    );
});
