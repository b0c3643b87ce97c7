/**
 * An upload's attempts into test_results with ONE binary COPY (issue 26: the acknowledgement waits
 * for the raw rows only, written the cheapest way PostgreSQL takes them). The rows are one buffer in
 * COPY's binary format (header, one tuple per attempt, trailer; copy-format.ts), streamed through
 * pg-copy-streams on the transaction's client. The buffer comes either from encodeResults here (from
 * prepared objects) or from the parser thread (ingest/row-encoder.ts) with its keys filled in place
 * by fillEncodedRows: the same bytes for the same attempts (test/unit/flaky/ingest/row-encoder.test.ts).
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
import { type PreparedTest } from '../ingest/prepare';
import { type EncodedRows } from '../ingest/row-encoder';
import {
  blankHead,
  COPY_HEADER_BYTES,
  COPY_TRAILER_BYTES,
  fillHead,
  HEAD_BYTES,
  INFRA_IN_TUPLE,
  setHeadTest,
  tailBytes,
  writeCopyHeader,
  writeTail,
} from './copy-format';

export interface ResultRows {
  readonly uploadPk: string;
  readonly repositoryPk: string;
  readonly at: Date;
  readonly infra: boolean;
  readonly tests: readonly { readonly pk: string; readonly test: PreparedTest }[];
}

/** What the API thread knows of every row only after its lookups. */
export interface RowKeys {
  readonly uploadPk: string;
  readonly repositoryPk: string;
  readonly at: Date;
  readonly infra: boolean;
}

const COPY_SQL = `COPY test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra, duration_ms,
  fingerprint) FROM STDIN (FORMAT binary)`;

/** Streams one encoded COPY buffer (encodeResults, fillEncodedRows) into test_results; null: no rows. */
export async function copyResults(client: PoolClient, buffer: Uint8Array | null): Promise<void> {
  if (buffer === null) return;
  await pipeline(Readable.from([buffer]), client.query(copyFrom(COPY_SQL)));
}

/** The COPY binary stream of the rows, or null when there are none. Exported for its unit test. */
export function encodeResults(rows: ResultRows): Buffer | null {
  let size = COPY_HEADER_BYTES + COPY_TRAILER_BYTES;
  let count = 0;
  for (const { test } of rows.tests)
    for (const attempt of test.attempts) {
      count += 1;
      size += HEAD_BYTES + tailBytes(attempt);
    }
  if (count === 0) return null;
  const out = Buffer.allocUnsafe(size);
  let at = writeCopyHeader(out);
  // The first five fields (count, upload, test, repository, time) are the same for every attempt of a
  // test: written once into `head` and copied per attempt (issue 26: four BigInt writes per row were
  // most of this function's time).
  const head = blankHead();
  fillHead(head, rows.uploadPk, rows.repositoryPk, rows.at);
  for (const { pk, test } of rows.tests) {
    setHeadTest(head, pk);
    for (const attempt of test.attempts) {
      at += head.copy(out, at);
      at = writeTail(out, at, attempt, rows.infra);
    }
  }
  at = out.writeInt16BE(-1, at); // trailer
  if (at !== size) throw new Error(`COPY buffer: wrote ${at} bytes of ${size}`);
  return out;
}

/**
 * The parser thread's COPY stream (row-encoder.ts) made whole in place: every tuple's head gets the
 * upload, its test's pk (`testPks[t]` for test t) and the repository and time, and its infra byte is
 * set for an infrastructure upload; no other byte is touched. Null when there are no rows. The rows
 * are used once: filling them again for another upload would be a bug, so they are not reused.
 */
export function fillEncodedRows(rows: EncodedRows, keys: RowKeys, testPks: readonly string[]): Buffer | null {
  const { tuples, firstTuple } = rows;
  if (tuples.length === 0) return null;
  if (testPks.length !== firstTuple.length - 1)
    throw new Error(`COPY rows: ${testPks.length} test keys for ${firstTuple.length - 1} tests`);
  const out = Buffer.from(rows.copy.buffer, rows.copy.byteOffset, rows.copy.byteLength);
  const head = blankHead();
  fillHead(head, keys.uploadPk, keys.repositoryPk, keys.at);
  for (let t = 0; t < testPks.length; t += 1) {
    setHeadTest(head, testPks[t]!);
    for (let i = firstTuple[t]!; i < firstTuple[t + 1]!; i += 1) {
      const tuple = tuples[i]!;
      head.copy(out, tuple);
      if (keys.infra) out[tuple + INFRA_IN_TUPLE] = 1;
    }
  }
  return out;
}
