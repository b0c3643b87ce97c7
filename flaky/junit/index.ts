/**
 * Public surface of the JUnit ingestion parser. See parse.ts for the pipeline and
 * docs/flaky-tests.md for the dialect mapping.
 */
export { parseJunit, parseJunitText, type ParseJunitOptions } from './parse';
export { combineUploadFiles, type UploadTestCase } from './upload';
export { inThreadJunitParser, type JunitParser } from './parser';
export { JunitParseError, describeProblem, type JunitProblem, type JunitProblemKind } from './errors';
export { DEFAULT_JUNIT_LIMITS, resolveJunitLimits, type BoundedText, type JunitLimits } from './limits';
export type { XmlChunk } from './decode';
export type {
  AttemptOrigin,
  AttemptStatus,
  Dialect,
  FailureDetail,
  ParsedAttempt,
  ParsedJunitFile,
  ParsedTestCase,
} from './types';
