/**
 * An upload's attempts into test_results with ONE binary COPY (issue 26: the acknowledgement waits
 * for the raw rows only, written the cheapest way PostgreSQL takes them). The rows are encoded here
 * into a single buffer in COPY's binary format (header, one tuple per attempt, trailer) and streamed
 * through pg-copy-streams on the transaction's client.
 *
 * Invariants:
 * - The column list is explicit and matches the encoder's field order and types exactly (int8, int8,
 *   int8, timestamptz, int2, text, bool, int4, text): binary COPY does no casting, a mismatch is an
 *   error, never a wrong value.
 * - Plain COPY FROM STDIN into the table by name: it works the same on a partitioned parent (rows are
 *   routed to their partition), with no ON CONFLICT, no RETURNING, no triggers relied on.
 * - All attempts of an upload share its time `at` (the ingest time), as before.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type PreparedAttempt, type PreparedTest } from '../ingest/prepare';

export interface ResultRows {
  readonly uploadPk: string;
  readonly repositoryPk: string;
  readonly at: Date;
  readonly infra: boolean;
  readonly tests: readonly { readonly pk: string; readonly test: PreparedTest }[];
}

const COPY_SQL = `COPY test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra, duration_ms,
  fingerprint) FROM STDIN (FORMAT binary)`;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FIELDS = 9;
/** PostgreSQL's epoch (2000-01-01 UTC) in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
/**
 * Bytes of a tuple with a duration and without its fingerprint's text: field count, 3 × int8,
 * timestamptz, int2, the 4-byte outcome, bool, int4, the fingerprint's length word.
 */
const FIXED = 2 + 3 * (4 + 8) + (4 + 8) + (4 + 2) + (4 + 4) + (4 + 1) + (4 + 4) + /* fingerprint length */ 4;

/** Bytes of a tuple's first five fields: field count, upload, test, repository (int8), time. */
const HEAD = 2 + 4 * (4 + 8);
/** Each outcome's four ASCII bytes as one big-endian word. */
const OUTCOME_WORDS: Readonly<Record<PreparedAttempt['outcome'], number>> = {
  pass: Buffer.from('pass', 'latin1').readInt32BE(0),
  fail: Buffer.from('fail', 'latin1').readInt32BE(0),
  skip: Buffer.from('skip', 'latin1').readInt32BE(0),
};

export async function copyResults(client: PoolClient, rows: ResultRows): Promise<number> {
  const buffer = encodeResults(rows);
  if (buffer === null) return 0;
  await pipeline(Readable.from([buffer]), client.query(copyFrom(COPY_SQL)));
  return rows.tests.reduce((n, t) => n + t.test.attempts.length, 0);
}

/** The COPY binary stream of the rows, or null when there are none. Exported for its unit test. */
export function encodeResults(rows: ResultRows): Buffer | null {
  let size = SIGNATURE.length + 8 + 2;
  let count = 0;
  for (const { test } of rows.tests)
    for (const attempt of test.attempts) {
      count += 1;
      size +=
        FIXED -
        (attempt.durationMs === undefined ? 4 : 0) +
        (attempt.failure === undefined ? 0 : Buffer.byteLength(attempt.failure.fingerprint));
    }
  if (count === 0) return null;
  const out = Buffer.allocUnsafe(size);
  let at = SIGNATURE.copy(out, 0);
  at = out.writeInt32BE(0, at); // flags
  at = out.writeInt32BE(0, at); // header extension length
  // The first five fields (count, upload, test, repository, time) are the same for every attempt of a
  // test: written once into `head` and copied per attempt (issue 26: four BigInt writes per row were
  // most of this function's time).
  const head = Buffer.allocUnsafe(HEAD);
  head.writeInt16BE(FIELDS, 0);
  int8(head, 2, BigInt(rows.uploadPk));
  int8(head, 26, BigInt(rows.repositoryPk));
  int8(head, 38, BigInt(rows.at.getTime() - PG_EPOCH_MS) * 1000n);
  const infra = rows.infra ? 1 : 0;
  for (const { pk, test } of rows.tests) {
    int8(head, 14, BigInt(pk));
    for (const attempt of test.attempts) {
      at += head.copy(out, at);
      at = out.writeInt32BE(2, at);
      at = out.writeInt16BE(attempt.index, at);
      // 'pass' | 'fail' | 'skip': four ASCII bytes each.
      at = out.writeInt32BE(4, at);
      at = out.writeInt32BE(OUTCOME_WORDS[attempt.outcome], at);
      at = out.writeInt32BE(1, at);
      at = out.writeUInt8(infra, at);
      if (attempt.durationMs === undefined) at = out.writeInt32BE(-1, at);
      else {
        at = out.writeInt32BE(4, at);
        at = out.writeInt32BE(attempt.durationMs, at);
      }
      const fingerprint = attempt.failure?.fingerprint;
      if (fingerprint === undefined) at = out.writeInt32BE(-1, at);
      else {
        const length = Buffer.byteLength(fingerprint);
        at = out.writeInt32BE(length, at);
        at += out.write(fingerprint, at, 'utf8');
      }
    }
  }
  at = out.writeInt16BE(-1, at); // trailer
  if (at !== size) throw new Error(`COPY buffer: wrote ${at} bytes of ${size}`);
  return out;
}

function int8(out: Buffer, at: number, value: bigint): number {
  out.writeInt32BE(8, at);
  return out.writeBigInt64BE(value, at + 4);
}
