/**
 * The JUnit parser's entry point: a stream of chunks in, the file's tests with ordered attempts
 * out. The chunks are decoded and parsed as they arrive (an HTTP body can be piped straight in);
 * what is kept is the bounded parse result, never a second copy of the document.
 *
 * Pipeline: decode (decode.ts) → XML walk with DOCTYPE refusal (reader.ts) → raw testcases
 * (collect.ts) → dialect detection (dialects/detect.ts) → identity per dialect (dialects/*) →
 * attempts per testcase (attempts.ts) → repeats merged (merge.ts).
 *
 * Every refusal is a JunitParseError (errors.ts); any other exception is a bug.
 */
import { attemptsOf } from './attempts';
import { createRawCollector } from './collect';
import { decodeXmlChunks, type XmlChunk } from './decode';
import { detectDialect, rulesFor } from './dialects';
import { type JunitLimits, resolveJunitLimits } from './limits';
import { mergeOccurrences } from './merge';
import { walkXml } from './reader';
import { type ParsedJunitFile, type ParsedTestCase } from './types';
import { optional } from './values';

export interface ParseJunitOptions {
  /** Shown in every error message; the name the file had in the upload. */
  readonly fileName: string;
  readonly limits?: Partial<JunitLimits>;
}

export async function parseJunit(
  source: AsyncIterable<XmlChunk> | Iterable<XmlChunk>,
  options: ParseJunitOptions,
): Promise<ParsedJunitFile> {
  const { fileName } = options;
  const limits = resolveJunitLimits(options.limits);
  const collector = createRawCollector(fileName, limits);
  await walkXml(decodeXmlChunks(source, fileName, limits.maxFileBytes), fileName, collector);
  const { evidence, cases } = collector.result();

  const dialect = detectDialect(evidence, cases);
  const rules = rulesFor(dialect);
  const occurrences = cases.map((raw) => ({
    identity: rules.identify(raw),
    attempts: attemptsOf(raw, limits),
    ...optional('attemptNumber', attemptNumberOf(raw.attributes.attempt_number)),
  }));
  const testCases = mergeOccurrences(occurrences, {
    fileName,
    limits,
    emptyRepeatsAreFailedReruns: rules.emptyRepeatsAreFailedReruns,
  });
  return { fileName, dialect, testCases, summary: summarise(testCases) };
}

/** Convenience for a document already in memory (tests, small files). */
export function parseJunitText(xml: string, options: ParseJunitOptions): Promise<ParsedJunitFile> {
  return parseJunit([xml], options);
}

function attemptNumberOf(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

function summarise(testCases: readonly ParsedTestCase[]): ParsedJunitFile['summary'] {
  const count = (status: ParsedTestCase['status']) => testCases.filter((t) => t.status === status).length;
  return {
    tests: testCases.length,
    attempts: testCases.reduce((sum, t) => sum + t.attempts.length, 0),
    passed: count('passed'),
    failed: count('failed'),
    error: count('error'),
    skipped: count('skipped'),
    retried: testCases.filter((t) => t.attempts.length > 1).length,
  };
}
