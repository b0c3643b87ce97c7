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
import { type CaseOccurrence, mergeOccurrences } from './merge';
import { walkXml } from './reader';
import { type ParsedJunitFile, type ParsedTestCase } from './types';

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
  const occurrences: CaseOccurrence[] = [];
  for (const raw of cases) {
    const identity = rules.identify(raw);
    const attempts = attemptsOf(raw, limits);
    const attemptNumber = attemptNumberOf(raw.attributes.attempt_number);
    occurrences.push(
      attemptNumber === undefined ? { identity, attempts } : { identity, attempts, attemptNumber },
    );
  }
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

/** A file's counts from its merged test cases (also used for results decoded from Trunk's protobuf). */
export function summarise(testCases: readonly ParsedTestCase[]): ParsedJunitFile['summary'] {
  const final = { passed: 0, failed: 0, error: 0, skipped: 0 };
  let attempts = 0;
  let retried = 0;
  for (const test of testCases) {
    final[test.status] += 1;
    attempts += test.attempts.length;
    if (test.attempts.length > 1) retried += 1;
  }
  return { tests: testCases.length, attempts, ...final, retried };
}
