/**
 * The dialect-neutral shape the XML walk produces, before dialect rules give it meaning.
 * Everything here is already bounded (see limits.ts); nothing here is interpreted yet.
 */
import { type BoundedText } from './limits';

export type OutcomeElement =
  'failure' | 'error' | 'skipped' | 'flakyFailure' | 'flakyError' | 'rerunFailure' | 'rerunError';

export interface RawOutcome {
  readonly element: OutcomeElement;
  readonly message?: string;
  readonly type?: string;
  readonly timeSeconds?: number;
  /** Direct text of the element, or its `<stackTrace>` child for retry elements. */
  readonly body?: BoundedText;
  readonly systemOut?: BoundedText;
  readonly systemErr?: BoundedText;
}

export interface RawSuite {
  readonly name: string;
  readonly hostname?: string;
}

export interface RawCase {
  /** Position among the file's testcases, for stable ordering. */
  readonly index: number;
  /** Enclosing testsuites, outermost first. */
  readonly suites: readonly RawSuite[];
  readonly attributes: Readonly<Record<string, string>>;
  readonly properties: Readonly<Record<string, string>>;
  /** Outcome elements in document order. */
  readonly outcomes: readonly RawOutcome[];
  readonly systemOut?: BoundedText;
  readonly systemErr?: BoundedText;
}

/** Facts about the document as a whole that identify the tool that wrote it. */
export interface DocumentEvidence {
  readonly root: 'testsuites' | 'testsuite';
  readonly rootAttributes: Readonly<Record<string, string>>;
  /** Names of `<property>` elements found under testsuites (not under testcases). */
  readonly suitePropertyNames: ReadonlySet<string>;
}

export interface RawDocument {
  readonly evidence: DocumentEvidence;
  readonly cases: readonly RawCase[];
}
