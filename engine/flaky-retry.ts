/**
 * Flaky retries: a run that failed only in known-flaky tests is run again before its failure counts.
 *
 * Rule (issue 28; docs/api-compat.md, "Test-level verdicts"): when a run fails and every failed test
 * it names is known flaky (the flaky-test service's status is flaky, or it is quarantined; at least one
 * is not quarantined, else the run passed already, verdict.ts), and the group has been retried fewer
 * than `flakyRetries` times (default 1, at most 3, config.ts), the same group gets a new run on the
 * same tree at once, told to run only the failed tests (`onlyTests`; a runner that cannot select runs
 * everything). Its PRs stay `testing` (`FLAKY_TESTS_RETRIED`) and nothing is ejected, blamed or
 * bisected meanwhile; the runs built on the group stay valid (its tree has not changed), as with a
 * restart in place. A retry that passes passes the group (`FLAKY_TESTS_PASSED_ON_RETRY`: the first run
 * passed every other test); one that fails counts as a failure like any other, and the runs retried
 * are named as evidence when a PR is ejected (`convictedBy`).
 * Invariants: a failure with no per-test detail, an incomplete list of failed tests (failed-tests.ts),
 * a timeout or a failure to start is never retried; a group is retried at most `flakyRetries` times
 * between two fresh runs; a retry neither records nor reads a known result (it runs only some tests).
 */
import { flakyRetriesOf } from './config';
import { type Draft, entryOf } from './draft';
import { type TestCaseResult } from './events';
import { failedTestsOf, onlyKnownFlaky } from './failed-tests';
import { startRun } from './groups';
import { type Entry, type Group } from './model';

/** Runs the group again if its failed run may be retried (see the rule); true when it was. */
export function retryFlakyFailure(
  d: Draft,
  group: Group,
  tests: readonly TestCaseResult[] | undefined,
): boolean {
  const retried = group.retriedRuns ?? [];
  if (group.runId === null || retried.length >= flakyRetriesOf(d.state.config)) return false;
  if (!onlyKnownFlaky(tests)) return false;
  const failed = failedTestsOf(tests)!;
  // The same tree: the PRs under it that have not merged since, in order.
  const tree = group.ahead.map((pr) => entryOf(d, pr)).filter((e): e is Entry => e !== undefined);
  group.retriedRuns = [...retried, group.runId];
  startRun(d, group, tree, { reason: 'FLAKY_TESTS_RETRIED', onlyTests: failed.ids });
  return true;
}
