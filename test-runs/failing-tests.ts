/**
 * The end of a run's log: its failing tests and their failures from the JUnit reports the run wrote,
 * so the log answers "why" even when the command printed nothing but its exit code (issue 29). The
 * control plane appends it to the executor's log before storing it (record.ts), from the judge's
 * reading of the same reports (no second parse).
 *
 * Rules and invariants:
 * - Everything shown is untrusted (test names and messages come from the tested code): each entry is
 *   one line with control characters replaced, cut at `maxLineChars`; at most `maxListed` entries and
 *   `maxBytes` bytes are written, and the section says how many it left out. Its size is bounded
 *   whatever the reports held, so it always survives the stored log's head-and-tail cut.
 * - Every line starts with `# ` like the executor's header and trailer: railyard's words, not the
 *   command's output.
 * - A passed run with nothing to report adds nothing; a failed run always says something: its failing
 *   tests, the reports that could not be read or were left out, or that no report named a failure.
 */
import type { TestOutcome } from '../executor/test-runner';
import type { TestFailure } from './judge';

export interface FailingTestsLimits {
  /** Entries (failing tests and report problems) listed at most. */
  readonly maxListed: number;
  /** Characters of one entry (name and failure together) at most. */
  readonly maxLineChars: number;
  /** Bytes of the whole section at most (UTF-8). */
  readonly maxBytes: number;
}

export const DEFAULT_FAILING_TESTS_LIMITS: FailingTestsLimits = {
  maxListed: 25,
  maxLineChars: 400,
  maxBytes: 8 * 1024,
};

export interface RunJunitReading {
  outcome: TestOutcome;
  failures: readonly TestFailure[];
  /** One sentence per report that could not be read. */
  problems: readonly string[];
  /** Reports were left out by the executor's count or size limits. */
  junitTruncated: boolean;
  junitFiles: number;
}

// Control characters (newlines included), DEL, C1 and the Unicode line separators: one line per entry.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One printable line of at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(UNPRINTABLE, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}

/** The section to append to the log ('' when a passed run has nothing to report). */
export function failingTestsSection(
  run: RunJunitReading,
  limits: FailingTestsLimits = DEFAULT_FAILING_TESTS_LIMITS,
): string {
  const entries = [
    ...run.failures.map(
      (f) =>
        `${f.name}${f.quarantined ? ' (quarantined)' : ''}: ${f.failure ?? '(no failure message in the report)'}`,
    ),
    ...run.problems.map((p) => `unreadable JUnit report: ${p}`),
    ...(run.junitTruncated ? ['JUnit reports left out (over the count or size limits): not read'] : []),
  ];
  if (entries.length === 0) {
    if (run.outcome === 'passed') return '';
    return run.junitFiles === 0
      ? '# the run wrote no JUnit report (junitGlobs): the output above is all there is\n'
      : `# no failing test in the run's ${run.junitFiles} JUnit report(s): the output above says why it ${run.outcome === 'timeout' ? 'timed out' : 'failed'}\n`;
  }
  const quarantined = run.failures.filter((f) => f.quarantined).length;
  const head =
    `# failing tests from the run's JUnit reports: ${run.failures.length}` +
    (quarantined > 0 ? ` (${quarantined} quarantined)` : '') +
    '\n';
  // Room for the "left out" line, whatever its numbers.
  const budget = limits.maxBytes - Buffer.byteLength(head) - 120;
  const lines: string[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (lines.length >= limits.maxListed) break;
    const line = `#   ${oneLine(entry, limits.maxLineChars)}\n`;
    const size = Buffer.byteLength(line);
    if (bytes + size > budget) break;
    lines.push(line);
    bytes += size;
  }
  const left = entries.length - lines.length;
  const tail =
    left > 0
      ? `#   … ${left} more not listed (a log lists at most ${limits.maxListed} entries, ${limits.maxBytes} bytes)\n`
      : '';
  return head + lines.join('') + tail;
}
