/**
 * Trunk bundle uploads (`bundle.tar.zstd` from trunk-analytics-cli and the language plugins): the
 * stream decoding, meta.json, the CI mapping and the protobuf report. Pure: no database, no HTTP;
 * api/routes/bundle-uploads/ receives the bundle and ingests what readBundle returns.
 */
export { readBundle } from './read-bundle';
export { DEFAULT_BUNDLE_LIMITS, DEFAULT_MAX_UNPACKED_BYTES, type BundleLimits } from './limits';
export type { ReadBundle } from './types';
export { parseBundleMeta, metaSchemaOf, type BundleMeta, type MetaSchema } from './meta';
export { ciDetailsOf, type CiDetails } from './ci';
export { BundleRefusal, describeBundleProblem, type BundleProblem, type BundleProblemKind } from './errors';
export {
  decodeTestReport,
  decodeBudgetOf,
  testReportToParsedFile,
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
} from './protobuf';
