/**
 * The XML walk: turns element events into raw test cases (raw.ts) with a stack of frames, one per
 * open element. Only the elements JUnit dialects use get a meaning; anything else is skipped with
 * its whole subtree, so unknown extensions never break parsing.
 *
 * Structural limits (test-case count, depth) are checked as elements open, so a hostile file is
 * refused while streaming, before it is read to the end. Text is kept through bounded builders.
 */
import { JunitParseError } from './errors';
import {
  boundedRecord,
  buildCase,
  buildOutcome,
  type CaseBuilder,
  MAX_PROPERTY_CHARS,
  newCase,
  newOutcome,
  type OutcomeBuilder,
  textFor,
} from './case-builder';
import { type BoundedTextBuilder, cutText, type JunitLimits } from './limits';
import {
  type DocumentEvidence,
  type OutcomeElement,
  type RawCase,
  type RawDocument,
  type RawSuite,
} from './raw';
import { type XmlHandler } from './reader';

/** Testcase attributes any dialect reads; the rest are dropped on arrival. */
const MAX_ROOT_ATTRIBUTES = 32;
const MAX_PROPERTIES = 64;
const MAX_SUITE_PROPERTY_NAMES = 256;

const OUTCOME_ELEMENTS: ReadonlySet<string> = new Set<OutcomeElement>([
  'failure',
  'error',
  'skipped',
  'flakyFailure',
  'flakyError',
  'rerunFailure',
  'rerunError',
]);

type Frame =
  | { readonly kind: 'root' }
  | { readonly kind: 'suite' }
  | { readonly kind: 'properties'; readonly owner: CaseBuilder | undefined }
  | { readonly kind: 'case'; readonly builder: CaseBuilder }
  | { readonly kind: 'outcome'; readonly builder: OutcomeBuilder }
  | { readonly kind: 'text'; readonly target: BoundedTextBuilder }
  | { readonly kind: 'ignored' };

// Frames without state are shared: most elements open one of these.
const ROOT: Frame = { kind: 'root' };
const SUITE: Frame = { kind: 'suite' };
const IGNORED: Frame = { kind: 'ignored' };

export interface RawCollector extends XmlHandler {
  result(): RawDocument;
}

export function createRawCollector(fileName: string, limits: JunitLimits): RawCollector {
  const stack: Frame[] = [];
  const suites: RawSuite[] = [];
  const cases: RawCase[] = [];
  const suitePropertyNames = new Set<string>();
  let evidence: Omit<DocumentEvidence, 'suitePropertyNames'> | undefined;
  let caseCount = 0;
  // The enclosing suites as of now, shared by every testcase until a suite opens or closes.
  let snapshot: readonly RawSuite[] | undefined;
  const suitesNow = () => (snapshot ??= [...suites]);
  const pushSuite = (attributes: Readonly<Record<string, string>>) => {
    suites.push(suiteOf(attributes));
    snapshot = undefined;
  };
  const popSuite = () => {
    suites.pop();
    snapshot = undefined;
  };

  const openRoot = (name: string, attributes: Readonly<Record<string, string>>): Frame => {
    if (name !== 'testsuites' && name !== 'testsuite')
      throw new JunitParseError(fileName, { kind: 'not_junit', root: name });
    evidence = { root: name, rootAttributes: boundedRecord(attributes, MAX_ROOT_ATTRIBUTES) };
    if (name === 'testsuites') return ROOT;
    pushSuite(attributes);
    return SUITE;
  };

  const openInSuite = (name: string, attributes: Readonly<Record<string, string>>): Frame => {
    switch (name) {
      case 'testsuite':
        pushSuite(attributes);
        return SUITE;
      case 'testcase':
        caseCount += 1;
        if (caseCount > limits.maxTestCases) {
          throw new JunitParseError(fileName, { kind: 'too_many_testcases', limit: limits.maxTestCases });
        }
        return { kind: 'case', builder: newCase(caseCount - 1, suitesNow(), attributes, limits) };
      case 'properties':
        return { kind: 'properties', owner: undefined };
      default:
        return IGNORED;
    }
  };

  const openInCase = (
    builder: CaseBuilder,
    name: string,
    attributes: Readonly<Record<string, string>>,
  ): Frame => {
    if (OUTCOME_ELEMENTS.has(name)) {
      return { kind: 'outcome', builder: newOutcome(builder, name as OutcomeElement, attributes, limits) };
    }
    switch (name) {
      case 'system-out':
        return { kind: 'text', target: textFor(builder, 'systemOut', limits) };
      case 'system-err':
        return { kind: 'text', target: textFor(builder, 'systemErr', limits) };
      case 'properties':
        return { kind: 'properties', owner: builder };
      default:
        return IGNORED;
    }
  };

  const openInOutcome = (builder: OutcomeBuilder, name: string): Frame => {
    switch (name) {
      case 'stackTrace':
        return { kind: 'text', target: builder.body };
      case 'system-out':
        return { kind: 'text', target: textFor(builder, 'systemOut', limits) };
      case 'system-err':
        return { kind: 'text', target: textFor(builder, 'systemErr', limits) };
      default:
        return IGNORED;
    }
  };

  const recordProperty = (
    owner: CaseBuilder | undefined,
    attributes: Readonly<Record<string, string>>,
  ): void => {
    const name = attributes.name;
    if (name === undefined) return;
    if (owner === undefined) {
      if (suitePropertyNames.size < MAX_SUITE_PROPERTY_NAMES) suitePropertyNames.add(name);
    } else if (Object.keys(owner.properties).length < MAX_PROPERTIES) {
      owner.properties[name] = cutText(attributes.value ?? '', MAX_PROPERTY_CHARS) ?? '';
    }
  };

  const open = (name: string, attributes: Readonly<Record<string, string>>): Frame => {
    const top = stack[stack.length - 1];
    if (top === undefined) return openRoot(name, attributes);
    switch (top.kind) {
      case 'root':
      case 'suite':
        return openInSuite(name, attributes);
      case 'case':
        return openInCase(top.builder, name, attributes);
      case 'outcome':
        return openInOutcome(top.builder, name);
      case 'properties':
        if (name === 'property') recordProperty(top.owner, attributes);
        return IGNORED;
      case 'text':
      case 'ignored':
        return IGNORED;
    }
  };

  return {
    open(name, attributes) {
      if (stack.length >= limits.maxDepth)
        throw new JunitParseError(fileName, { kind: 'too_deep', limit: limits.maxDepth });
      stack.push(open(name, attributes));
    },
    close() {
      const frame = stack.pop();
      if (frame?.kind === 'suite') popSuite();
      if (frame?.kind === 'case') cases.push(buildCase(frame.builder));
      if (frame?.kind === 'outcome') frame.builder.owner.outcomes.push(buildOutcome(frame.builder, limits));
    },
    text(text) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'text') top.target.append(text);
      if (top?.kind === 'outcome') top.builder.body.append(text);
    },
    result() {
      // saxes refuses a document without a root element, so evidence is always set here.
      if (evidence === undefined)
        throw new JunitParseError(fileName, { kind: 'malformed', detail: 'no root element' });
      return { evidence: { ...evidence, suitePropertyNames }, cases };
    },
  };
}

function suiteOf(attributes: Readonly<Record<string, string>>): RawSuite {
  const hostname = attributes.hostname;
  return hostname === undefined ? { name: attributes.name ?? '' } : { name: attributes.name ?? '', hostname };
}
