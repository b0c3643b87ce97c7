/**
 * Where a run's failed tests last passed on the target branch (issue 28, "it passed on main at C"): the
 * judge (the queue's command runs) or CI's uploads (ci-uploads.ts) name it per failed test, the run keeps
 * it, and an ejected PR's `test_evidence` names the commit of the first convicting test that has one.
 * Invariants: bounded in the carried state (MAX_DETAIL_NAMES tests, names and shas cut like any detail);
 * pure reads and writes of the run.
 */
import { MAX_DETAIL_NAMES, MAX_DETAIL_TEXT, type TestCaseVerdict } from '../../contract';
import type { RunMeta } from './carried';

/** Keeps the failed tests' last passes on the target that the run's result named. */
export function notePassedOnTarget(run: RunMeta, tests: readonly TestCaseVerdict[] | undefined): void {
  const named: [string, string][] = [];
  for (const t of tests ?? []) {
    if (named.length >= MAX_DETAIL_NAMES) break;
    if (t.status !== 'failed' || !t.passedOnTarget) continue;
    named.push([t.name.slice(0, MAX_DETAIL_TEXT), t.passedOnTarget.slice(0, 64)]);
  }
  if (named.length > 0) run.passedOnTarget = named;
}

/** The target-branch commit the first of `tests` that one of `runs` knows last passed on; undefined: none. */
export function passedOnTargetOf(runs: readonly RunMeta[], tests: readonly string[]): string | undefined {
  for (const test of tests)
    for (const run of runs) {
      const sha = run.passedOnTarget?.find(([name]) => name === test)?.[1];
      if (sha) return sha;
    }
  return undefined;
}
