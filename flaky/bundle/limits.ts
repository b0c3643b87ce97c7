/**
 * The bounds of reading one Trunk bundle (read-bundle.ts says where each is checked): unpacked bytes,
 * the zstd window, entries, result files, the bytes of each entry held whole, each results file's
 * JUnit limits and the protobuf decoding budget. The parser pool takes them with a bundle job
 * (flaky/junit/parser.ts), so they live here, below both the reader and the parser.
 */
import type { JunitLimits } from '../junit/limits';
import type { DecodeLimits } from './protobuf';

export interface BundleLimits {
  /** Bytes the bundle may unpack to (RAILYARD_BUNDLE_MAX_UNPACKED_BYTES). */
  readonly maxUnpackedBytes: number;
  /** Largest zstd window accepted; the CLI's level 15 uses 4 MiB. */
  readonly maxWindowBytes: number;
  readonly maxEntries: number;
  readonly maxResultFiles: number;
  readonly maxMetaBytes: number;
  readonly maxReportBytes: number;
  readonly maxCodeownersBytes: number;
  /** Limits of each results file, JUnit or protobuf. */
  readonly junit?: Partial<JunitLimits>;
  /** The bundle's protobuf decoding budget (DEFAULT_DECODE_LIMITS when absent). */
  readonly decode?: DecodeLimits;
}

export const DEFAULT_MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  maxUnpackedBytes: DEFAULT_MAX_UNPACKED_BYTES,
  maxWindowBytes: 8 * 1024 * 1024,
  maxEntries: 10_000,
  maxResultFiles: 5_000,
  maxMetaBytes: 16 * 1024 * 1024,
  maxReportBytes: 20 * 1024 * 1024,
  maxCodeownersBytes: 1024 * 1024,
};
