/**
 * The messages between the parser pool (main thread) and its workers. One job is one file; a job's
 * chunks arrive in order on one worker. Flow control: the worker acknowledges a chunk once the
 * parser has asked for the next one (so everything before it has been parsed), and the main thread
 * keeps at most a window of unacknowledged bytes in flight, so a fast client cannot queue a whole
 * upload in the worker's inbox. A `matchOwners` job is one message each way: the CODEOWNERS
 * patterns and distinct paths of one upload out, the index of the owning rule per path back (an
 * Int32Array, cloned).
 *
 * Results cross as JSON text when JSON can carry them exactly (no `undefined` fields, no infinite
 * numbers), which the main thread parses about 2.5 times faster than it deserialises the same result
 * as a structured clone; otherwise as a structured clone. Either way the main thread gets a value
 * deep-equal to what parseJunit returned in the worker.
 *
 * A `bundle` job is a whole Trunk bundle (flaky/bundle readBundle: zstd, tar, JUnit files and
 * protobuf reports, all CPU-bound and amplifying) streamed in like a file; its answer is the bundle's
 * meta and CODEOWNERS as a structured clone (meta holds Maps) and each file as a WireResult.
 *
 * Errors cross as data: a JunitParseError as its file name and problem, a BundleRefusal as its
 * problem (each rebuilt on the main thread with the same kind and message), anything else as a
 * message and stack (a bug, answered as 500).
 */
import { type BundleProblem, BundleRefusal } from '../../bundle/errors';
import type { BundleLimits } from '../../bundle/limits';
import type { ReadBundle } from '../../bundle/types';
import { JunitParseError, type JunitProblem } from '../errors';
import { type OwnersOutcome, type OwnersRequest } from '../../owners-matching';
import { type JunitLimits } from '../limits';
import { type ParsedJunitFile } from '../types';
import { attachEncodedRows } from '../../ingest/encoded-files';
import { encodeParsedRows, type EncodedRows, transferablesOf } from '../../ingest/row-encoder';

/** Marks the worker threads this pool starts, so the entry module only serves when started by it. */
export const WORKER_MARK = 'railyard-junit-parser';

/** What a streamed job reads: one JUnit file, or a whole Trunk bundle. */
export type JobTask =
  | { readonly kind: 'junit'; readonly fileName: string; readonly limits?: Partial<JunitLimits> }
  | { readonly kind: 'bundle'; readonly limits: BundleLimits };

export type ToWorker =
  | { readonly type: 'start'; readonly job: number; readonly task: JobTask }
  | { readonly type: 'chunk'; readonly job: number; readonly chunk: Uint8Array | string }
  | { readonly type: 'end'; readonly job: number }
  | { readonly type: 'abort'; readonly job: number }
  /** CODEOWNERS matching for one upload (owners-matching.ts), answered by `owners` or `error`. */
  | { readonly type: 'matchOwners'; readonly job: number; readonly request: OwnersRequest };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'ack'; readonly job: number; readonly bytes: number }
  | { readonly type: 'done'; readonly job: number; readonly result: WireResult }
  | { readonly type: 'bundle'; readonly job: number; readonly bundle: WireBundle }
  | { readonly type: 'owners'; readonly job: number; readonly outcome: OwnersOutcome }
  | { readonly type: 'error'; readonly job: number; readonly error: WireError };

export type WireResult =
  | { readonly format: 'json'; readonly text: string }
  | { readonly format: 'clone'; readonly file: ParsedJunitFile }
  /**
   * A JUnit job's file with its COPY rows encoded on the thread (ingest/row-encoder.ts): the file's
   * test cases as JSON text, parsed on the main thread only if something reads them (an upload of
   * several files, CODEOWNERS matching, a fallback), and the rows in transferred buffers.
   */
  | {
      readonly format: 'rows';
      readonly head: Omit<ParsedJunitFile, 'testCases'>;
      readonly testCases: string;
      readonly rows: EncodedRows;
    };

export function resultToWire(file: ParsedJunitFile): WireResult {
  return jsonExact(file) ? { format: 'json', text: JSON.stringify(file) } : { format: 'clone', file };
}

/** A JUnit job's answer: with its rows when JSON carries the file exactly; and what to transfer. */
export function resultToRowsWire(file: ParsedJunitFile): { wire: WireResult; transfer: ArrayBuffer[] } {
  if (!jsonExact(file)) return { wire: { format: 'clone', file }, transfer: [] };
  const { testCases, ...head } = file;
  const rows = encodeParsedRows(file);
  return {
    wire: { format: 'rows', head, testCases: JSON.stringify(testCases), rows },
    transfer: transferablesOf(rows),
  };
}

export function resultFromWire(wire: WireResult): ParsedJunitFile {
  switch (wire.format) {
    case 'json':
      return JSON.parse(wire.text) as ParsedJunitFile;
    case 'clone':
      return wire.file;
    case 'rows': {
      const text = wire.testCases;
      const file = { ...wire.head } as ParsedJunitFile;
      // Parsed at the first read, then an ordinary data property (an enumerable own key either way,
      // so the file is deep-equal to an in-thread parse).
      Object.defineProperty(file, 'testCases', {
        enumerable: true,
        configurable: true,
        get(this: ParsedJunitFile) {
          const testCases = JSON.parse(text) as ParsedJunitFile['testCases'];
          Object.defineProperty(this, 'testCases', { value: testCases, enumerable: true, writable: false });
          return testCases;
        },
      });
      attachEncodedRows(file, wire.rows);
      return file;
    }
  }
}

export interface WireBundle {
  readonly meta: ReadBundle['meta'];
  readonly files: readonly WireResult[];
  readonly codeowners?: string;
}

export function bundleToWire(bundle: ReadBundle): WireBundle {
  return { ...bundle, files: bundle.files.map(resultToWire) };
}

export function bundleFromWire(wire: WireBundle): ReadBundle {
  return { ...wire, files: wire.files.map(resultFromWire) };
}

/** True when JSON.parse(JSON.stringify(value)) is deep-equal to value: plain data, finite numbers. */
export function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const item of value) if (!jsonExact(item)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) if (!jsonExact((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

export type WireError =
  | { readonly kind: 'junit'; readonly fileName: string; readonly problem: JunitProblem }
  | { readonly kind: 'bundle'; readonly problem: BundleProblem }
  | { readonly kind: 'bug'; readonly message: string; readonly stack?: string };

export function toWire(err: unknown): WireError {
  if (err instanceof JunitParseError) return { kind: 'junit', fileName: err.fileName, problem: err.problem };
  if (err instanceof BundleRefusal) return { kind: 'bundle', problem: err.problem };
  if (err instanceof Error)
    return { kind: 'bug', message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
  return { kind: 'bug', message: String(err) };
}

export function fromWire(wire: WireError): Error {
  if (wire.kind === 'junit') return new JunitParseError(wire.fileName, wire.problem);
  if (wire.kind === 'bundle') return new BundleRefusal(wire.problem);
  const err = new Error(`The JUnit parser thread failed: ${wire.message}`);
  if (wire.stack !== undefined) err.stack = `${err.message}\n(worker) ${wire.stack}`;
  return err;
}

/** Byte length of a chunk as the flow-control window counts it. */
export function chunkBytes(chunk: Uint8Array | string): number {
  return typeof chunk === 'string' ? chunk.length * 2 : chunk.byteLength;
}
