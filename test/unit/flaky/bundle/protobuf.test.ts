/**
 * The protobuf test report (internal.bin / internal/N) becomes the same ParsedJunitFile shape the
 * JUnit parser gives: identity fields, statuses, durations, failure text, retries as attempts.
 */
import { BundleRefusal, decodeTestReport, testReportToParsedFile } from '../../../../flaky/bundle';
import { parseJunitText } from '../../../../flaky/junit';
import { testReport, testResult } from '../../../support/test-report-wire';

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

describe('protobuf test reports', () => {
  it('maps runs to tests with attempts, statuses, durations and failure details', () => {
    const bytes = testReport([
      [
        {
          name: 'adds',
          classname: 'Calc',
          file: 'spec/calc_spec.rb',
          parent: 'Calc',
          status: 1,
          startedMs: T0,
          finishedMs: T0 + 1500,
        },
        {
          name: 'divides',
          classname: 'Calc',
          file: 'spec/calc_spec.rb',
          parent: 'Calc',
          status: 2,
          attemptIndex: 0,
          message: 'boom',
          text: 'stack\ntrace',
        },
        {
          name: 'divides',
          classname: 'Calc',
          file: 'spec/calc_spec.rb',
          parent: 'Calc',
          status: 1,
          attemptIndex: 1,
        },
      ],
      [{ name: 'pending', parent: 'Other', status: 3, legacyMessage: 'not yet' }],
    ]);
    const file = testReportToParsedFile(decodeTestReport(bytes, 'internal.bin'), 'internal.bin');
    expect(file.dialect).toBe('generic');
    expect(file.summary).toEqual({
      tests: 3,
      attempts: 4,
      passed: 2,
      failed: 0,
      error: 0,
      skipped: 1,
      retried: 1,
    });
    const [adds, divides, pending] = file.testCases;
    expect(adds).toMatchObject({
      name: 'adds',
      classname: 'Calc',
      file: 'spec/calc_spec.rb',
      parent: 'Calc',
      suite: 'Calc',
      status: 'passed',
    });
    expect(adds!.attempts).toEqual([{ index: 0, status: 'passed', origin: 'testcase', durationMs: 1500 }]);
    expect(divides!.status).toBe('passed');
    expect(divides!.attempts.map((a) => [a.index, a.status, a.origin])).toEqual([
      [0, 'failed', 'testcase'],
      [1, 'passed', 'repeated'],
    ]);
    expect(divides!.attempts[0]!.failure).toEqual({
      message: 'boom',
      body: { text: 'stack\ntrace', totalChars: 11 },
    });
    expect(pending).toMatchObject({ name: 'pending', classname: '', parent: 'Other', status: 'skipped' });
    expect(pending!.attempts[0]!.skip).toEqual({ message: 'not yet' });
  });

  it('orders retries by attempt_index when every run has one (rspec writes them out of order)', () => {
    const bytes = testReport([
      [
        { name: 't', status: 1, attemptIndex: 1 },
        { name: 't', status: 2, attemptIndex: 0 },
      ],
    ]);
    const [t] = testReportToParsedFile(decodeTestReport(bytes, 'internal/0'), 'x.bin').testCases;
    expect(t!.attempts.map((a) => a.status)).toEqual(['failed', 'passed']);
    expect(t!.status).toBe('passed');
  });

  it('gives the same identity as the JUnit parser for the same test', async () => {
    const junit = await parseJunitText(
      '<testsuites><testsuite name="Calc"><testcase name="adds" classname="Calc" file="spec/calc_spec.rb"/></testsuite></testsuites>',
      { fileName: 'a.xml' },
    );
    const proto = testReportToParsedFile(
      decodeTestReport(
        testReport([
          [{ name: 'adds', classname: 'Calc', file: 'spec/calc_spec.rb', parent: 'Calc', status: 1 }],
        ]),
        'i',
      ),
      'a.bin',
    );
    const identity = (t: { name: string; classname: string; parent: string; file?: string }) => [
      t.name,
      t.classname,
      t.parent,
      t.file,
    ];
    expect(identity(proto.testCases[0]!)).toEqual(identity(junit.testCases[0]!));
  });

  it('reads a bare TestResult, as Trunk does when the bytes are not a TestReport', () => {
    const report = decodeTestReport(testResult([{ name: 'only', status: 2 }]), 'internal/3');
    const file = testReportToParsedFile(report, 'r.bin');
    expect(file.testCases.map((t) => [t.name, t.status])).toEqual([['only', 'failed']]);
  });

  it('refuses bytes that are no report, naming the entry', () => {
    expect(() => decodeTestReport(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), 'internal.bin')).toThrow(
      BundleRefusal,
    );
    expect(() => decodeTestReport(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), 'internal.bin')).toThrow(
      /^The bundle entry "internal.bin" is not a valid Trunk test report: /,
    );
  });

  it('holds the JUnit limits: test case count, attempts per test, long names and long text', () => {
    const many = testReport([Array.from({ length: 11 }, (_, i) => ({ name: `t${i}`, status: 1 }))]);
    expect(() =>
      testReportToParsedFile(decodeTestReport(many, 'i'), 'i', limits({ maxTestCases: 10 })),
    ).toThrow('more than 10 test case runs');
    const retried = testReport([Array.from({ length: 4 }, () => ({ name: 'same', status: 2 }))]);
    expect(() =>
      testReportToParsedFile(decodeTestReport(retried, 'i'), 'i', limits({ maxAttemptsPerTest: 3 })),
    ).toThrow(/more than 3 attempts/);
    const long = testReport([[{ name: 'n'.repeat(5000), status: 2, text: 'x'.repeat(100_000) }]]);
    const [t] = testReportToParsedFile(decodeTestReport(long, 'i'), 'i').testCases;
    expect(t!.name.length).toBeLessThanOrEqual(1000);
    expect(t!.attempts[0]!.failure!.body!.text.length).toBe(8000);
    expect(t!.attempts[0]!.failure!.body!.totalChars).toBe(100_000);
  });
});

import { resolveJunitLimits, type JunitLimits } from '../../../../flaky/junit';
const limits = (overrides: Partial<JunitLimits>) => resolveJunitLimits(overrides);
