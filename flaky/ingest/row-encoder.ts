/**
 * encodeParsedRows: a parsed JUnit file as the rows ingestion writes, encoded on the parser thread
 * (issue 26: the API thread no longer builds one JavaScript object per result). Its output crosses
 * to the API thread as transferable buffers and a few strings:
 *  - `copy`: the whole binary COPY stream of the file's attempts (copy-format.ts) in file order,
 *    with every tuple's upload, test, repository and time left zero and infra false: the API thread
 *    knows them only after its lookups, and fills them in place (fillEncodedRows) without copying
 *    a byte of the rest;
 *  - `tuples` (offset of each attempt's tuple) and `firstTuple` (index of each test's first tuple, one
 *    more entry at the end): where to fill;
 *  - `outcomes`: each attempt's outcome code (OUTCOME_CODES), for the upload's counts and digest;
 *  - `identities`: JSON of the flat list [file|null, classname, parent, name] per test, what the
 *    test id and a new test row are made of;
 *  - `failures`: JSON of [attempt, fingerprint, summary, sample] per failed attempt (the fold
 *    queue's input and the digest's), the only per-result strings, and only for failures.
 *
 * Invariants: the bytes of each tuple are exactly what encodeResults writes for the same attempt
 * (both use copy-format.ts and prepareAttempt; a test pins it); the tests are the file's, in its
 * order, so the file's one-entry-per-identity rule holds. Bounds: nothing here is larger than the
 * parsed file, which the parser bounded (bytes, tests, attempts, name and text lengths); the
 * fingerprint's summary and sample are cut to 200 characters (fingerprint.ts).
 */
import { type ParsedJunitFile } from '../junit';
import {
  blankHead,
  COPY_HEADER_BYTES,
  COPY_TRAILER_BYTES,
  HEAD_BYTES,
  tailBytes,
  writeCopyHeader,
  writeTail,
} from '../store/copy-format';
import { type PreparedAttempt, prepareAttempt } from './attempt';

export interface EncodedRows {
  readonly copy: Uint8Array;
  readonly tuples: Int32Array;
  readonly firstTuple: Int32Array;
  readonly outcomes: Uint8Array;
  readonly identities: string;
  readonly failures: string;
}

/** One failed attempt: its index among the file's attempts, and its FailureFingerprint's fields. */
export type EncodedFailure = readonly [attempt: number, fingerprint: string, summary: string, sample: string];

export const OUTCOME_CODES = { pass: 0, fail: 1, skip: 2 } as const satisfies Record<
  PreparedAttempt['outcome'],
  number
>;
export const OUTCOMES: readonly PreparedAttempt['outcome'][] = ['pass', 'fail', 'skip'];

export function encodeParsedRows(file: ParsedJunitFile): EncodedRows {
  const tests = file.testCases;
  let attemptCount = 0;
  for (const test of tests) attemptCount += test.attempts.length;
  const prepared = new Array<PreparedAttempt>(attemptCount);
  const firstTuple = new Int32Array(tests.length + 1);
  const identities: (string | null)[] = new Array<string | null>(tests.length * 4);
  let size = COPY_HEADER_BYTES + COPY_TRAILER_BYTES;
  let n = 0;
  for (let t = 0; t < tests.length; t += 1) {
    const test = tests[t]!;
    firstTuple[t] = n;
    identities[t * 4] = test.file ?? null;
    identities[t * 4 + 1] = test.classname;
    identities[t * 4 + 2] = test.parent;
    identities[t * 4 + 3] = test.name;
    for (const attempt of test.attempts) {
      const p = prepareAttempt(attempt);
      prepared[n++] = p;
      size += HEAD_BYTES + tailBytes(p);
    }
  }
  firstTuple[tests.length] = n;
  const copy = Buffer.alloc(size);
  const tuples = new Int32Array(attemptCount);
  const outcomes = new Uint8Array(attemptCount);
  const failures: EncodedFailure[] = [];
  const head = blankHead();
  let at = writeCopyHeader(copy);
  for (let i = 0; i < attemptCount; i += 1) {
    const p = prepared[i]!;
    tuples[i] = at;
    outcomes[i] = OUTCOME_CODES[p.outcome];
    if (p.failure !== undefined)
      failures.push([i, p.failure.fingerprint, p.failure.summary, p.failure.sample]);
    at += head.copy(copy, at);
    at = writeTail(copy, at, p, false);
  }
  at = copy.writeInt16BE(-1, at); // trailer
  if (at !== size) throw new Error(`COPY rows: wrote ${at} bytes of ${size}`);
  return {
    // A view of its own ArrayBuffer (Buffer.alloc may pool small ones): transferable as a whole.
    copy: copy.byteOffset === 0 && copy.buffer.byteLength === size ? copy : new Uint8Array(copy),
    tuples,
    firstTuple,
    outcomes,
    identities: JSON.stringify(identities),
    failures: JSON.stringify(failures),
  };
}

/** The buffers to transfer (not copy) with the rows. */
export function transferablesOf(rows: EncodedRows): ArrayBuffer[] {
  return [
    rows.copy.buffer,
    rows.tuples.buffer,
    rows.firstTuple.buffer,
    rows.outcomes.buffer,
  ] as ArrayBuffer[];
}
