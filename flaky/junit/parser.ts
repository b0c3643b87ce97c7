/**
 * A JUnit parser as a dependency: what the upload route calls to turn a file's chunks into a parsed
 * file. Two implementations give the same results, errors included: {@link inThreadJunitParser}
 * (parseJunit on the calling thread) and the worker-thread pool (pool/), which moves the CPU-bound
 * parse off the API's event loop.
 *
 * Rule: callers must not care which one they hold; every refusal is a JunitParseError with the same
 * kind and message either way, and `close()` is safe to call more than once.
 */
import type { BundleLimits } from '../bundle/limits';
import type { ReadBundle } from '../bundle/types';
import { matchOwnersInSlices, type OwnersOutcome, type OwnersRequest } from '../owners-matching';
import { type XmlChunk } from './decode';
import { parseJunit, type ParseJunitOptions } from './parse';
import { type ParsedJunitFile } from './types';

export interface JunitParser {
  /** Parses one file as its chunks arrive (an HTTP part can be passed as is). */
  parse(
    source: AsyncIterable<XmlChunk> | Iterable<XmlChunk>,
    options: ParseJunitOptions,
  ): Promise<ParsedJunitFile>;
  /**
   * Matches an upload's test files against its CODEOWNERS, the other CPU-bound part of an upload:
   * the pool runs it on a thread. Absent (test doubles), callers use matchOwnersInSlices.
   */
  matchOwners?(request: OwnersRequest): Promise<OwnersOutcome>;
  /**
   * Reads a whole Trunk bundle (flaky/bundle readBundle): the pool runs it on a thread, so its
   * decompression and decoding never block the event loop. Absent, callers run readBundle here.
   */
  readBundle?(source: AsyncIterable<Uint8Array>, limits: BundleLimits): Promise<ReadBundle>;
  /** Releases threads, if any; pending parses are refused. */
  close(): Promise<void>;
}

export const inThreadJunitParser: JunitParser = {
  parse: parseJunit,
  // On the calling thread, in slices that give the event loop back between them.
  matchOwners: (request) => matchOwnersInSlices(request),
  close: () => Promise.resolve(),
};
