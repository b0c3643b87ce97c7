/**
 * Writes Trunk protobuf test reports for tests, field by field from the published numbers of
 * trunk-io/analytics-cli proto/proto/test_context.proto, with protobufjs's low-level Writer: it does
 * not use railyard's schema text, so a wrong field number there would fail the tests.
 */
import protobuf from 'protobufjs';

export interface RunSpec {
  name: string;
  classname?: string;
  file?: string;
  parent?: string;
  /** 1 success, 2 failure, 3 skipped, 0 unspecified. */
  status: number;
  startedMs?: number;
  finishedMs?: number;
  attemptIndex?: number;
  text?: string;
  message?: string;
  legacyMessage?: string;
}

const message = (write: (w: protobuf.Writer) => void) => {
  const w = protobuf.Writer.create();
  write(w);
  return w.finish();
};
const timestamp = (ms: number) =>
  message((w) =>
    w
      .uint32((1 << 3) | 0)
      .int64(Math.floor(ms / 1000))
      .uint32((2 << 3) | 0)
      .int32((ms % 1000) * 1e6),
  );
const bytesField = (w: protobuf.Writer, field: number, bytes: Uint8Array) =>
  w.uint32((field << 3) | 2).bytes(bytes);
const stringField = (w: protobuf.Writer, field: number, value: string | undefined) => {
  if (value !== undefined) w.uint32((field << 3) | 2).string(value);
};

export function testCaseRun(run: RunSpec): Uint8Array {
  return message((w) => {
    stringField(w, 1, `id-${run.name}`);
    stringField(w, 2, run.name);
    stringField(w, 3, run.classname);
    stringField(w, 4, run.file);
    stringField(w, 5, run.parent);
    w.uint32((7 << 3) | 0).int32(run.status);
    if (run.startedMs !== undefined) bytesField(w, 9, timestamp(run.startedMs));
    if (run.finishedMs !== undefined) bytesField(w, 10, timestamp(run.finishedMs));
    stringField(w, 11, run.legacyMessage);
    if (run.attemptIndex !== undefined)
      bytesField(
        w,
        14,
        message((m) => m.uint32((1 << 3) | 0).int32(run.attemptIndex!)),
      );
    if (run.text !== undefined || run.message !== undefined)
      bytesField(
        w,
        16,
        message((m) => (stringField(m, 1, run.text), stringField(m, 2, run.message))),
      );
  });
}

/** A TestResult (field 1: repeated TestCaseRun). */
export const testResult = (runs: RunSpec[]) =>
  message((w) => runs.forEach((r) => bytesField(w, 1, testCaseRun(r))));

/** A TestReport (field 1: repeated TestResult; field 2: UploaderMetadata with origin and variant). */
export const testReport = (results: RunSpec[][]) =>
  message((w) => {
    results.forEach((runs) => bytesField(w, 1, testResult(runs)));
    bytesField(
      w,
      2,
      message((m) => (stringField(m, 1, '0.0.0'), stringField(m, 2, 'rspec'))),
    );
  });
