/**
 * A protobuf test report (`internal.bin`, `internal/N`) as the ParsedJunitFile the JUnit parser
 * would give for the same results, so ingestion cannot tell the two apart. Like Trunk's reader, the
 * bytes are decoded as a `TestReport`, and when that fails as a single `TestResult`.
 *
 * Mapping of one TestCaseRun: name, classname, file and parent_name are the identity (parent_name is
 * also the suite); SUCCESS → passed, FAILURE → failed, SKIPPED → skipped, and UNSPECIFIED → skipped
 * (it is neither a pass nor a failure); the duration is finished_at − started_at; test_output (or the
 * deprecated status_output_message) gives the failure message and body and the captured output.
 * Runs of one test are its attempts, ordered by attempt_index when every run has one (rspec), else in
 * report order; the JUnit parser's merge does that, with its limits.
 *
 * Invariants: the same bounds as a JUnit file (test cases, attempts per test, text lengths, shortened
 * identity fields); the input is decoded only from a buffer the caller has already bounded, and only
 * after report-scan.ts has counted what decoding it materialises against the upload's DecodeBudget
 * (entries, nesting, runs per file, time): a report past a bound is refused before any object exists.
 */
import protobuf from 'protobufjs';
import { BoundedTextBuilder, cutText, DEFAULT_JUNIT_LIMITS, type JunitLimits } from '../junit/limits';
import { type CaseOccurrence, mergeOccurrences } from '../junit/merge';
import { summarise } from '../junit/parse';
import type { AttemptStatus, FailureDetail, ParsedAttempt, ParsedJunitFile } from '../junit/types';
import { refuse } from './errors';
import { type DecodeBudget, scanReport, type ScanOutcome, type ScanShape, scanShapeOf } from './report-scan';
import { TEST_REPORT_PROTO } from './test-report-proto';

interface Timestamp {
  seconds?: number;
  nanos?: number;
}
interface TestCaseRun {
  name?: string;
  classname?: string;
  file?: string;
  parent_name?: string;
  line?: number;
  status?: number;
  started_at?: Timestamp;
  finished_at?: Timestamp;
  status_output_message?: string;
  attempt_index?: { number?: number };
  line_number?: { number?: number };
  test_output?: { text?: string; message?: string; system_out?: string; system_err?: string };
}
interface TestResult {
  test_case_runs?: TestCaseRun[];
}
interface TestReport {
  test_results?: TestResult[];
}

interface ReportTypes {
  readonly report: protobuf.Type;
  readonly result: protobuf.Type;
  readonly reportShape: ScanShape;
  readonly resultShape: ScanShape;
}

let types: ReportTypes | null = null;
/** The message types, parsed from the schema once, on first use. */
function reportTypes(): ReportTypes {
  if (types === null) {
    const { root } = protobuf.parse(TEST_REPORT_PROTO, { keepCase: true });
    const report = root.lookupType('test_context.test_run.TestReport');
    const result = root.lookupType('test_context.test_run.TestResult');
    const run = root.lookupType('test_context.test_run.TestCaseRun');
    types = {
      report,
      result,
      reportShape: scanShapeOf(report, run),
      resultShape: scanShapeOf(result, run),
    };
  }
  return types;
}

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: Number,
  enums: Number,
  defaults: false,
  arrays: true,
};

/** Default bounds of one upload's protobuf decoding (BundleLimits.decode). */
export interface DecodeLimits {
  /** Fields on the wire every report of one upload may hold together (the memory budget). */
  readonly maxEntries: number;
  /** Deepest nesting of messages and groups. */
  readonly maxNesting: number;
  /** Milliseconds the upload's reports may take to decode (the CPU time budget). */
  readonly maxMilliseconds: number;
}

/**
 * About 100 bytes of heap per entry once decoded (measured: 96 MiB for a million empty messages, 19
 * MiB for 20,000 typical runs of 14 entries each), twice that while decoding: 1.2 million entries
 * keep one upload's decoding near 120 MiB (250 MiB at its peak), room for 85,000 typical runs.
 */
export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxEntries: 1_200_000,
  maxNesting: 32,
  maxMilliseconds: 5_000,
};

/** A fresh budget for one upload. */
export function decodeBudgetOf(
  limits: DecodeLimits,
  maxRunsPerFile: number,
  now: () => number = () => performance.now(),
): DecodeBudget {
  return {
    maxEntries: limits.maxEntries,
    maxNesting: limits.maxNesting,
    maxRunsPerFile,
    maxMilliseconds: limits.maxMilliseconds,
    now,
    spent: 0,
    spentMs: 0,
  };
}

/** Refuses the entry when a scan crossed a bound. */
function refuseOver(outcome: ScanOutcome, entryName: string, budget: DecodeBudget) {
  if (outcome.kind !== 'over') return;
  switch (outcome.bound) {
    case 'runs':
      return refuse({
        kind: 'protobuf_malformed',
        name: entryName,
        detail: `it has more than ${budget.maxRunsPerFile} test case runs, the limit for one file`,
      });
    case 'entries':
      return refuse({
        kind: 'report_over_budget',
        name: entryName,
        bound: 'entries',
        limit: budget.maxEntries,
      });
    case 'nesting':
      return refuse({
        kind: 'report_over_budget',
        name: entryName,
        bound: 'nesting',
        limit: budget.maxNesting,
      });
    case 'time':
      return refuse({
        kind: 'report_over_budget',
        name: entryName,
        bound: 'time',
        limit: budget.maxMilliseconds,
      });
  }
}

/**
 * Decodes a report; refuses the entry (protobuf_malformed) when it is neither form, and
 * (report_over_budget) when it holds more than the upload's budget has left.
 */
export function decodeTestReport(
  bytes: Uint8Array,
  entryName: string,
  budget: DecodeBudget = decodeBudgetOf(DEFAULT_DECODE_LIMITS, DEFAULT_JUNIT_LIMITS.maxTestCases),
): TestReport {
  const started = budget.now();
  try {
    return decodeWithin(bytes, entryName, budget);
  } finally {
    budget.spentMs += budget.now() - started;
  }
}

/**
 * Refuses a report from its first bytes when they alone cross a bound: the scan of a prefix goes
 * through the same states as the scan of the whole up to the cut, so a prefix over a bound means
 * the whole is over it too (and gets the same refusal). Spends nothing of the budget.
 */
export function refuseReportPrefix(prefix: Uint8Array, entryName: string, budget: DecodeBudget): void {
  const { reportShape } = reportTypes();
  refuseOver(scanReport(prefix, reportShape, { ...budget }), entryName, budget);
}

function decodeWithin(bytes: Uint8Array, entryName: string, budget: DecodeBudget): TestReport {
  const { report, result, reportShape, resultShape } = reportTypes();
  // As the decode below: the report form first, the single result when that is malformed.
  let scanned = scanReport(bytes, reportShape, budget);
  refuseOver(scanned, entryName, budget);
  if (scanned.kind === 'malformed') {
    scanned = scanReport(bytes, resultShape, budget);
    refuseOver(scanned, entryName, budget);
  }
  try {
    return report.toObject(report.decode(bytes), TO_OBJECT);
  } catch {
    try {
      return { test_results: [result.toObject(result.decode(bytes), TO_OBJECT)] };
    } catch (err) {
      const detail =
        err instanceof Error ? err.message.replace(/\.+$/, '').slice(0, 200) : 'it cannot be decoded';
      return refuse({ kind: 'protobuf_malformed', name: entryName, detail });
    }
  }
}

function statusOf(status: number | undefined): AttemptStatus {
  switch (status) {
    case 1:
      return 'passed';
    case 2:
      return 'failed';
    default:
      return 'skipped';
  }
}

const millis = (t: Timestamp | undefined) =>
  t === undefined ? undefined : (t.seconds ?? 0) * 1_000 + Math.floor((t.nanos ?? 0) / 1_000_000);

function bounded(text: string | undefined, maxChars: number) {
  if (!text) return undefined;
  const builder = new BoundedTextBuilder(maxChars);
  builder.append(text);
  return builder.build();
}

function attemptOf(run: TestCaseRun, limits: JunitLimits): ParsedAttempt {
  const status = statusOf(run.status);
  const output = run.test_output;
  const message = cutText(output?.message || run.status_output_message || undefined, limits.maxMessageChars);
  const body = bounded(output?.text, limits.maxBodyChars);
  const detail: FailureDetail | undefined =
    message === undefined && body === undefined
      ? undefined
      : { ...(message === undefined ? {} : { message }), ...(body === undefined ? {} : { body }) };
  const started = millis(run.started_at);
  const finished = millis(run.finished_at);
  const durationMs =
    started !== undefined && finished !== undefined && finished >= started ? finished - started : undefined;
  const systemOut = bounded(output?.system_out, limits.maxOutputChars);
  const systemErr = bounded(output?.system_err, limits.maxOutputChars);
  return {
    index: 0,
    status,
    origin: 'testcase',
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(detail === undefined
      ? {}
      : status === 'failed'
        ? { failure: detail }
        : status === 'skipped'
          ? { skip: detail }
          : {}),
    ...(systemOut === undefined ? {} : { systemOut }),
    ...(systemErr === undefined ? {} : { systemErr }),
  };
}

function occurrenceOf(run: TestCaseRun, limits: JunitLimits): CaseOccurrence {
  const cut = (value: string | undefined) => cutText(value ?? '', limits.maxNameChars * 4) ?? '';
  const parent = cut(run.parent_name);
  const line = run.line_number?.number ?? (run.line ? run.line : undefined);
  const identity = {
    suite: parent,
    classname: cut(run.classname),
    name: cut(run.name),
    parent,
    ...(run.file ? { file: cut(run.file) } : {}),
    ...(line !== undefined && line > 0 ? { line } : {}),
  };
  // A present attempt_index of 0 decodes as an empty message (proto3 leaves zeros off the wire).
  const attemptNumber = run.attempt_index === undefined ? undefined : (run.attempt_index.number ?? 0);
  return {
    identity,
    attempts: [attemptOf(run, limits)],
    ...(attemptNumber === undefined ? {} : { attemptNumber }),
  };
}

/** The report's runs as one parsed file named `fileName`. */
export function testReportToParsedFile(
  report: TestReport,
  fileName: string,
  limits: JunitLimits = DEFAULT_JUNIT_LIMITS,
): ParsedJunitFile {
  const occurrences: CaseOccurrence[] = [];
  for (const result of report.test_results ?? []) {
    for (const run of result.test_case_runs ?? []) {
      if (occurrences.length >= limits.maxTestCases)
        refuse({
          kind: 'protobuf_malformed',
          name: fileName,
          detail: `it has more than ${limits.maxTestCases} test case runs, the limit for one file`,
        });
      occurrences.push(occurrenceOf(run, limits));
    }
  }
  const testCases = mergeOccurrences(occurrences, { fileName, limits, emptyRepeatsAreFailedReruns: false });
  return { fileName, dialect: 'generic', testCases, summary: summarise(testCases) };
}
