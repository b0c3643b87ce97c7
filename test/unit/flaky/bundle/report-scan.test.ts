/**
 * The protobuf pre-scan (flaky/bundle/report-scan.ts, through decodeTestReport): what a report would
 * materialise is counted before it is decoded, against one budget per upload (fields, nesting, runs
 * per file, time), and a report past a bound is refused with a sentence naming the entry and the
 * limit. The amplification bomb of issue 24 (20 MiB of empty messages) is refused by the scan.
 */
import fc from 'fast-check';
import protobuf from 'protobufjs';
import {
  BundleRefusal,
  DEFAULT_DECODE_LIMITS,
  decodeBudgetOf,
  decodeTestReport,
  type DecodeLimits,
} from '../../../../flaky/bundle';
import { refuseReportPrefix } from '../../../../flaky/bundle/protobuf';
import { scanReport, scanShapeOf } from '../../../../flaky/bundle/report-scan';
import { TEST_REPORT_PROTO } from '../../../../flaky/bundle/test-report-proto';
import { testReport, testResult } from '../../../support/test-report-wire';

const budget = (limits: Partial<DecodeLimits> = {}, runs = 100_000, now?: () => number) =>
  decodeBudgetOf({ ...DEFAULT_DECODE_LIMITS, ...limits }, runs, now);

const refusalOf = (run: () => unknown): BundleRefusal => {
  try {
    run();
  } catch (err) {
    if (err instanceof BundleRefusal) return err;
    throw err;
  }
  throw new Error('not refused');
};

/** `count` empty TestResults: 2 bytes each on the wire, an object and an array each when decoded. */
const emptyMessages = (count: number) => {
  const bytes = Buffer.alloc(count * 2);
  for (let i = 0; i < bytes.length; i += 2) bytes[i] = 0x0a;
  return bytes;
};

const runs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}`, status: 1 }));

describe('protobuf reports are counted before they are decoded', () => {
  it('refuses the 20 MiB bomb of empty messages by its field count, naming the entry and the limit', () => {
    const b = budget();
    const err = refusalOf(() => decodeTestReport(emptyMessages(10 * 1024 * 1024), 'internal.bin', b));
    expect(err.statusCode).toBe(413);
    expect(err.message).toBe(
      `The bundle entry "internal.bin" holds more than ${DEFAULT_DECODE_LIMITS.maxEntries} protobuf fields (counted over the upload's reports), the limit for one upload.`,
    );
    // Nothing of a refused report is charged, and nothing of it was decoded to charge.
    expect(b.spent).toBe(0);
  });

  it('refuses from a prefix exactly when the whole would be refused, and charges nothing for it', () => {
    const b = budget({ maxEntries: 100_000 });
    const prefix = emptyMessages(1024 * 1024).subarray(0, 1024 * 1024 - 1);
    expect(refusalOf(() => refuseReportPrefix(prefix, 'internal.bin', b)).message).toMatch(
      /^The bundle entry "internal.bin" holds more than 100000 protobuf fields/,
    );
    // A prefix within the budget says nothing, even when cut inside a field.
    const report = testReport([runs(50)]);
    refuseReportPrefix(report.subarray(0, report.length - 3), 'internal.bin', b);
    expect(b.spent).toBe(0);
  });

  it('charges every report of an upload to one budget: two that fit alone are refused together', () => {
    const report = testReport([runs(10)]);
    const alone = budget();
    decodeTestReport(report, 'internal/0', alone);
    const perReport = alone.spent;
    expect(perReport).toBeGreaterThan(10);

    const shared = budget({ maxEntries: perReport * 2 - 1 });
    expect(decodeTestReport(report, 'internal/0', shared).test_results).toHaveLength(1);
    const err = refusalOf(() => decodeTestReport(report, 'internal/1', shared));
    expect(err.message).toMatch(/^The bundle entry "internal\/1" holds more than \d+ protobuf fields/);
    expect(shared.spent).toBe(perReport);
  });

  it('refuses more test case runs than one file may hold before decoding them, as the JUnit limit says', () => {
    const err = refusalOf(() => decodeTestReport(testReport([runs(11)]), 'internal.bin', budget({}, 10)));
    expect(err.message).toBe(
      'The bundle entry "internal.bin" is not a valid Trunk test report: it has more than 10 test case runs, the limit for one file.',
    );
    // The same bound reads a bare TestResult too.
    expect(() => decodeTestReport(testResult(runs(11)), 'internal/0', budget({}, 10))).toThrow(
      'more than 10 test case runs',
    );
    expect(
      decodeTestReport(testReport([runs(10)]), 'internal.bin', budget({}, 10)).test_results,
    ).toHaveLength(1);
  });

  it('refuses groups of unknown fields nested deeper than the limit (protobufjs skips them recursively)', () => {
    // Field 3, start group (wire type 3), 40 deep, closed by as many end groups (wire type 4).
    const deep = Buffer.from([...Array(40).fill(0x1b), ...Array(40).fill(0x1c)]);
    const err = refusalOf(() => decodeTestReport(deep, 'internal.bin', budget({ maxNesting: 32 })));
    expect(err.statusCode).toBe(400);
    expect(err.message).toBe(
      'The bundle entry "internal.bin" nests protobuf messages deeper than the limit of 32 levels.',
    );
    // Ten deep is an ordinary (if odd) unknown field: skipped, the report decodes.
    const shallow = Buffer.from([...Array(10).fill(0x1b), ...Array(10).fill(0x1c)]);
    expect(decodeTestReport(shallow, 'internal.bin', budget()).test_results ?? []).toEqual([]);
  });

  it("stops when the upload's decoding time is spent, and charges the time each report took", () => {
    let clock = 0;
    const b = budget({ maxMilliseconds: 100 }, 100_000, () => clock);
    // A clock that moves 1 ms per read: the scan reads it every few thousand fields.
    const ticking = budget({ maxMilliseconds: 100 }, 100_000, () => (clock += 1));
    expect(refusalOf(() => decodeTestReport(emptyMessages(1_000_000), 'internal/2', ticking)).message).toBe(
      `The bundle entry "internal/2" was still being decoded when the upload's limit of 100 ms of decoding ran out.`,
    );
    b.spentMs = 100;
    expect(refusalOf(() => decodeTestReport(testReport([runs(1)]), 'internal/3', b)).statusCode).toBe(413);
  });

  /** Real reports, cut or with a byte changed: mostly still decodable, unlike random bytes. */
  const validReports = fc
    .tuple(
      fc.array(fc.record({ name: fc.string(), status: fc.nat(3) }), { maxLength: 4 }),
      fc.nat(),
      fc.nat(255),
    )
    .map(([rs, at, byte]) => {
      const bytes = Buffer.from(testReport([rs]));
      if (bytes.length > 0 && at % 3 === 0) bytes[at % bytes.length] = byte;
      return at % 3 === 1 ? bytes.subarray(0, at % (bytes.length + 1)) : bytes;
    });

  it('accepts and refuses exactly what protobufjs alone would, when no bound is crossed (random bytes)', () => {
    const { root } = protobuf.parse(TEST_REPORT_PROTO, { keepCase: true });
    const report = root.lookupType('test_context.test_run.TestReport');
    const result = root.lookupType('test_context.test_run.TestResult');
    const run = root.lookupType('test_context.test_run.TestCaseRun');
    const shapes = [scanShapeOf(report, run), scanShapeOf(result, run)] as const;
    const plain = (bytes: Uint8Array) => {
      for (const [i, type] of [report, result].entries())
        try {
          type.decode(bytes);
          // What protobufjs reads, the scan follows to the end (so it counted all of it).
          expect(scanReport(bytes, shapes[i]!, budget()).kind).toBe('ok');
          return 'decoded';
        } catch (err) {
          // A failed expectation is the test's; anything else is the decoder refusing this form.
          if ((err as { matcherResult?: unknown }).matcherResult !== undefined) throw err;
        }
      return 'refused';
    };
    const bounded = (bytes: Uint8Array) => {
      try {
        decodeTestReport(bytes, 'internal.bin', budget());
        return 'decoded';
      } catch (err) {
        if (err instanceof BundleRefusal) return 'refused';
        throw err;
      }
    };
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 96 }), validReports), (bytes) => {
        expect(bounded(bytes)).toBe(plain(bytes));
      }),
      { numRuns: 3_000 },
    );
  });
});
