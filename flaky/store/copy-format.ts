/**
 * The binary COPY format of test_results' rows, shared by the two encoders: encodeResults
 * (copy-results.ts, from prepared test objects on the API's thread) and encodeParsedRows
 * (ingest/row-encoder.ts, on the parser thread straight from the parsed file). Both must write the
 * same bytes for the same attempt, so the per-attempt part (`writeTail`) and its size (`tailBytes`)
 * live here once.
 *
 * Layout of one tuple (column list in copy-results.ts): a 50-byte head — field count, upload, test,
 * repository (int8 each) and the ingest time (timestamptz) — then the tail: attempt (int2), outcome
 * (4 ASCII bytes), infra (bool, at byte INFRA_IN_TUPLE of the tuple), duration (int4 or NULL),
 * fingerprint (UTF-8 text or NULL). Binary COPY has no escaping: a text field is its length and
 * bytes, so tabs, newlines, backslashes and any Unicode go through as they are.
 */
import { type PreparedAttempt } from '../ingest/attempt';

export const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags, header extension length. */
export const COPY_HEADER_BYTES = COPY_SIGNATURE.length + 8;
export const COPY_TRAILER_BYTES = 2;
export const COPY_FIELDS = 9;
/** PostgreSQL's epoch (2000-01-01 UTC) in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
/** Bytes of a tuple's first five fields: field count, upload, test, repository (int8), time. */
export const HEAD_BYTES = 2 + 4 * (4 + 8);
/** Offsets in the head of the test's int8 value (its length word comes before it). */
export const TEST_PK_IN_HEAD = 14 + 4;
/** Offset of the infra bool's byte from the start of a tuple. */
export const INFRA_IN_TUPLE = HEAD_BYTES + (4 + 2) + (4 + 4) + 4;

/** Each outcome's four ASCII bytes as one big-endian word. */
const OUTCOME_WORDS: Readonly<Record<PreparedAttempt['outcome'], number>> = {
  pass: Buffer.from('pass', 'latin1').readInt32BE(0),
  fail: Buffer.from('fail', 'latin1').readInt32BE(0),
  skip: Buffer.from('skip', 'latin1').readInt32BE(0),
};

/** Writes the COPY header at 0; returns the offset after it. */
export function writeCopyHeader(out: Buffer): number {
  const at = COPY_SIGNATURE.copy(out, 0);
  out.writeInt32BE(0, at); // flags
  return out.writeInt32BE(0, at + 4); // header extension length
}

/**
 * A head with every length word and the field count in place and all values zero; `fillHead` sets
 * the values. The parser thread writes this blank head, the API thread fills it per test.
 */
export function blankHead(): Buffer {
  const head = Buffer.alloc(HEAD_BYTES);
  head.writeInt16BE(COPY_FIELDS, 0);
  for (let field = 0; field < 4; field += 1) head.writeInt32BE(8, 2 + field * 12);
  return head;
}

/** Sets the upload, repository and time of a head (the test is set per test with `setHeadTest`). */
export function fillHead(head: Buffer, uploadPk: string, repositoryPk: string, at: Date): void {
  head.writeBigInt64BE(BigInt(uploadPk), 2 + 4);
  head.writeBigInt64BE(BigInt(repositoryPk), 26 + 4);
  head.writeBigInt64BE(BigInt(at.getTime() - PG_EPOCH_MS) * 1000n, 38 + 4);
}

export function setHeadTest(head: Buffer, testPk: string): void {
  head.writeBigInt64BE(BigInt(testPk), TEST_PK_IN_HEAD);
}

/** Bytes of an attempt's tail. */
export function tailBytes(attempt: PreparedAttempt): number {
  return (
    4 +
    2 +
    (4 + 4) +
    (4 + 1) +
    4 +
    (attempt.durationMs === undefined ? 0 : 4) +
    4 +
    (attempt.failure === undefined ? 0 : Buffer.byteLength(attempt.failure.fingerprint))
  );
}

/** Writes an attempt's tail at `at` (infra as given); returns the offset after it. */
export function writeTail(out: Buffer, at: number, attempt: PreparedAttempt, infra: boolean): number {
  at = out.writeInt32BE(2, at);
  at = out.writeInt16BE(attempt.index, at);
  at = out.writeInt32BE(4, at);
  at = out.writeInt32BE(OUTCOME_WORDS[attempt.outcome], at);
  at = out.writeInt32BE(1, at);
  at = out.writeUInt8(infra ? 1 : 0, at);
  if (attempt.durationMs === undefined) at = out.writeInt32BE(-1, at);
  else {
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(attempt.durationMs, at);
  }
  const fingerprint = attempt.failure?.fingerprint;
  if (fingerprint === undefined) return out.writeInt32BE(-1, at);
  at = out.writeInt32BE(Buffer.byteLength(fingerprint), at);
  return at + out.write(fingerprint, at, 'utf8');
}
