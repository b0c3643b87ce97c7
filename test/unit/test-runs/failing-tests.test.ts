/**
 * The end of a run's log (test-runs/failing-tests.ts): the failing tests and their failures, bounded
 * in count and bytes whatever the reports held (their names and messages are untrusted), each entry on
 * one line, and a failed run that names no failing test says so instead of ending at "exit code 1".
 */
import fc from 'fast-check';
import { failingTestsSection, oneLine, type RunJunitReading } from '../../../test-runs/failing-tests';

const run = (extra: Partial<RunJunitReading>): RunJunitReading => ({
  outcome: 'failed',
  failures: [],
  problems: [],
  junitTruncated: false,
  junitFiles: 1,
  ...extra,
});

it('lists each failing test with its failure, quarantined ones marked, then unreadable reports', () => {
  const section = failingTestsSection(
    run({
      failures: [
        { name: 'calc › adds', quarantined: false, failure: 'expected 3, received 4' },
        { name: 'calc › totals', quarantined: true, failure: null },
      ],
      problems: ['JUnit file "b.xml" is not well-formed XML (line 1, column 5)'],
      junitTruncated: true,
    }),
  );
  expect(section).toBe(
    [
      "# failing tests from the run's JUnit reports: 2 (1 quarantined)",
      '#   calc › adds: expected 3, received 4',
      '#   calc › totals (quarantined): (no failure message in the report)',
      '#   unreadable JUnit report: JUnit file "b.xml" is not well-formed XML (line 1, column 5)',
      '#   JUnit reports left out (over the count or size limits): not read',
      '',
    ].join('\n'),
  );
});

it('says why a failed run without a failing test has nothing to list', () => {
  expect(failingTestsSection(run({ junitFiles: 0 }))).toBe(
    '# the run wrote no JUnit report (junitGlobs): the output above is all there is\n',
  );
  expect(failingTestsSection(run({ junitFiles: 2, outcome: 'timeout' }))).toBe(
    "# no failing test in the run's 2 JUnit report(s): the output above says why it timed out\n",
  );
  expect(failingTestsSection(run({ outcome: 'passed' }))).toBe('');
});

it('keeps each entry on one line: control characters and line breaks become spaces', () => {
  expect(oneLine('a\nb\r\n\tc\u001b[31md\u2028e', 100)).toBe('a b c [31md e');
  expect(oneLine('x'.repeat(10), 5)).toBe('xxxx…');
});

it('says how many it left out past the count', () => {
  const failures = Array.from({ length: 30 }, (_, i) => ({
    name: `t${i}`,
    quarantined: false,
    failure: 'no',
  }));
  const lines = failingTestsSection(run({ failures }), { maxListed: 3, maxLineChars: 100, maxBytes: 4096 })
    .trimEnd()
    .split('\n');
  expect(lines).toEqual([
    "# failing tests from the run's JUnit reports: 30",
    '#   t0: no',
    '#   t1: no',
    '#   t2: no',
    '#   … 27 more not listed (a log lists at most 3 entries, 4096 bytes)',
  ]);
});

it('stays within its byte bound, one line per entry, whatever the names and messages', () => {
  const limits = { maxListed: 25, maxLineChars: 400, maxBytes: 8 * 1024 };
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          name: fc.string({ maxLength: 2000, unit: 'binary' }),
          quarantined: fc.boolean(),
          failure: fc.option(fc.string({ maxLength: 5000, unit: 'binary' })),
        }),
        { maxLength: 200 },
      ),
      fc.array(fc.string({ maxLength: 3000 }), { maxLength: 50 }),
      (failures, problems) => {
        const section = failingTestsSection(run({ failures, problems }), limits);
        expect(Buffer.byteLength(section)).toBeLessThanOrEqual(limits.maxBytes);
        const lines = section.trimEnd().split('\n');
        expect(lines.every((line) => line.startsWith('# '))).toBe(true);
        const listed = lines.filter((line) => /^# {3}(?!… \d+ more)/.test(line)).length;
        const more = /… (\d+) more not listed/.exec(section);
        expect(listed + (more ? Number(more[1]) : 0)).toBe(failures.length + problems.length);
      },
    ),
    { numRuns: 40 },
  );
});
