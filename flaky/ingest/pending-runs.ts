/**
 * An upload's runs per test for its fold queue row (store/batch-runs.ts): per test, in the order of
 * its pks, the non-skipped and the failing attempts, counted from the same attempts the COPY writes
 * (prepared objects, or the parser thread's outcome codes), so the fold's counts are the raw rows'.
 * Every test is listed, also one whose attempts were all skipped (0 and 0): the fold still
 * re-classifies it and counts its run for the quarantine lifecycle.
 */
import { type PendingRuns } from '../store/fold-queue';
import { type PreparedTest } from './prepare';
import { type EncodedRows, OUTCOME_CODES } from './row-encoder';

/** From prepared tests with their pks. */
export function runsOfTests(
  tests: readonly { readonly pk: string; readonly test: PreparedTest }[],
): PendingRuns {
  const runs: number[] = [];
  const fails: number[] = [];
  for (const { test } of tests) {
    let ran = 0;
    let failed = 0;
    for (const attempt of test.attempts) {
      if (attempt.outcome === 'skip') continue;
      ran += 1;
      if (attempt.outcome === 'fail') failed += 1;
    }
    runs.push(ran);
    fails.push(failed);
  }
  return { testPks: tests.map((t) => t.pk), runs, fails };
}

/** From the parser thread's rows: test t's attempts are outcomes[firstTuple[t]..firstTuple[t + 1]). */
export function runsOfRows(
  rows: Pick<EncodedRows, 'outcomes' | 'firstTuple'>,
  testPks: readonly string[],
): PendingRuns {
  const { outcomes, firstTuple } = rows;
  const runs = new Array<number>(testPks.length);
  const fails = new Array<number>(testPks.length);
  for (let t = 0; t < testPks.length; t += 1) {
    let ran = 0;
    let failed = 0;
    for (let i = firstTuple[t]!; i < firstTuple[t + 1]!; i += 1) {
      const code = outcomes[i]!;
      if (code === OUTCOME_CODES.skip) continue;
      ran += 1;
      if (code === OUTCOME_CODES.fail) failed += 1;
    }
    runs[t] = ran;
    fails[t] = failed;
  }
  return { testPks, runs, fails };
}
