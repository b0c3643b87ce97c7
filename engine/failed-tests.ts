/**
 * The failed tests of a run, as the engine keeps them: a bounded list of test ids, and what they say.
 *
 * Rules (issue 28, "Test-level verdicts"; docs/api-compat.md, "Test-level verdicts"):
 * - A run's report names its failed tests, each with what the flaky-test service knows of it
 *   (`flaky`, `quarantined`). A hostile run may name millions, or ids megabytes long, so the engine
 *   keeps at most MAX_FAILED_TESTS ids of at most MAX_TEST_ID_LENGTH characters, MAX_FAILED_TEST_CHARS
 *   in all, and reads at most MAX_FAILED_TESTS_READ failed entries; anything past a bound makes the
 *   list *incomplete* (`complete: false`).
 * - Only a complete list supports a test-level decision: a flaky-only failure (every failed test known
 *   flaky or quarantined) and an unrelated chunk failure (none of the batch's failed tests among the
 *   chunk's) are claims about *every* failed test, and an incomplete list cannot back them. An
 *   incomplete or empty list leaves today's run-level rules in force.
 * Invariants: pure; the kept ids are a prefix, in report order, without duplicates, of the failed tests
 * reported that are not quarantined; an id with a control character (a line break, NUL) is never
 * kept; a cut id is never kept (it would name another test), so two kept ids are equal only if the
 * tests are.
 */
import { type TestCaseResult } from './events';
import { type FailedTests } from './model';

// A group keeps its failed tests in the queue's state, carried across continue-as-new (kept under
// 256 KiB for 1,000 PRs, test/unit/queue/carried-size.test.ts): 1 KiB per failed group at most, so even
// 100 failed runs at once stay far below it. Ten names are also what a reason shows (MAX_DETAIL_NAMES).
export const MAX_FAILED_TESTS = 10;
export const MAX_TEST_ID_LENGTH = 256;
export const MAX_FAILED_TEST_CHARS = 1_024;
/** Failed entries read at most (repeats included), so a report costs bounded CPU whatever it holds. */
export const MAX_FAILED_TESTS_READ = 1_000;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

// The shape lives with the state that holds it (model.ts), so the state does not import this module.
export type { FailedTests } from './model';

/** The failed tests of a report, quarantined ones left out; null when it names none (no detail, a crash). */
export function failedTestsOf(tests: readonly TestCaseResult[] | undefined): FailedTests | null {
  const ids: string[] = [];
  const seen = new Set<string>();
  let chars = 0;
  let complete = true;
  let any = false;
  let reported = 0;
  for (const t of tests ?? []) {
    // A quarantined failure is forgiven (verdict.ts): it neither convicts nor relates a chunk to a batch.
    if (t.status !== 'failed' || t.quarantined) continue;
    any = true;
    reported += 1;
    // A list padded with repeats is hostile too: past this many failures it is not read further.
    if (reported > MAX_FAILED_TESTS_READ) {
      complete = false;
      break;
    }
    if (seen.has(t.name)) continue;
    const fits =
      t.name.length <= MAX_TEST_ID_LENGTH &&
      // One id per line for the command (RAILYARD_ONLY_TESTS), and no NUL in an environment variable.
      !CONTROL.test(t.name) &&
      ids.length < MAX_FAILED_TESTS &&
      chars + t.name.length <= MAX_FAILED_TEST_CHARS;
    if (!fits) {
      complete = false;
      // Nothing more can be kept once the count or the total is reached: stop reading a hostile list.
      if (ids.length >= MAX_FAILED_TESTS || chars >= MAX_FAILED_TEST_CHARS) break;
      continue;
    }
    seen.add(t.name);
    ids.push(t.name);
    chars += t.name.length;
  }
  return any ? { ids, complete } : null;
}

/**
 * Whether every failed test of a failed report is known flaky (flaky or quarantined), at least one is
 * not quarantined (a quarantined-only failure already passes, verdict.ts), and the list is complete.
 */
export function onlyKnownFlaky(tests: readonly TestCaseResult[] | undefined): boolean {
  const failed = failedTestsOf(tests);
  if (!failed?.complete) return false;
  const failing = (tests ?? []).filter((t) => t.status === 'failed');
  return failing.every((t) => t.flaky === true || t.quarantined) && failing.some((t) => !t.quarantined);
}

/**
 * A bisection chunk's failure is unrelated to its batch's when both lists are complete and none of
 * the batch's failed tests (`suspects`) failed in the chunk: the chunk passed (or did not fail) every
 * test that convicted the batch, so it holds no culprit of that failure; what it failed is new.
 */
export function unrelatedFailure(
  failed: FailedTests | null | undefined,
  suspects: FailedTests | undefined,
): boolean {
  if (!failed?.complete || !suspects?.complete) return false;
  if (failed.ids.length === 0 || suspects.ids.length === 0) return false;
  return !failed.ids.some((id) => suspects.ids.includes(id));
}

/**
 * The tests that convict a chunk's PRs: those of its failed tests that had failed in the batch, or all
 * its failed tests when the batch named none. [] when nothing is known.
 */
export function convictingTests(
  failed: FailedTests | null | undefined,
  suspects: FailedTests | undefined,
): string[] {
  if (!failed) return suspects?.ids ?? [];
  if (!suspects || suspects.ids.length === 0) return failed.ids;
  const related = failed.ids.filter((id) => suspects.ids.includes(id));
  return related.length > 0 ? related : failed.ids;
}
