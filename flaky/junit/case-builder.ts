/**
 * Mutable builders for one open `<testcase>` and one open outcome element, and their conversion
 * to the immutable raw shapes once the element closes. Every value is cut to its bound on the way
 * in, so an open testcase never holds more than the limits allow. Output builders are created on
 * the first `<system-out>`/`<system-err>` (textFor): most testcases have none, and an upload has
 * thousands of testcases.
 */
import { BoundedTextBuilder, cutText, type JunitLimits } from './limits';
import { type OutcomeElement, type RawCase, type RawOutcome, type RawSuite } from './raw';
import { type Mutable, optional, parseSeconds } from './values';

/** Testcase attributes any dialect reads; the rest are dropped on arrival. */
const CASE_ATTRIBUTES = ['name', 'classname', 'file', 'filepath', 'line', 'time', 'attempt_number'] as const;
export const MAX_PROPERTY_CHARS = 1_000;

export interface CaseBuilder {
  readonly index: number;
  readonly suites: readonly RawSuite[];
  readonly attributes: Record<string, string>;
  readonly properties: Record<string, string>;
  readonly outcomes: RawOutcome[];
  systemOut?: BoundedTextBuilder;
  systemErr?: BoundedTextBuilder;
}

export interface OutcomeBuilder {
  readonly owner: CaseBuilder;
  readonly element: OutcomeElement;
  readonly attributes: Readonly<Record<string, string>>;
  readonly body: BoundedTextBuilder;
  systemOut?: BoundedTextBuilder;
  systemErr?: BoundedTextBuilder;
}

/** The builder of a captured output stream, created when the element first opens. */
export function textFor(
  owner: CaseBuilder | OutcomeBuilder,
  stream: 'systemOut' | 'systemErr',
  limits: JunitLimits,
): BoundedTextBuilder {
  return (owner[stream] ??= new BoundedTextBuilder(limits.maxOutputChars));
}

export function newCase(
  index: number,
  suites: readonly RawSuite[],
  attributes: Readonly<Record<string, string>>,
  limits: JunitLimits,
): CaseBuilder {
  const kept: Record<string, string> = {};
  for (const key of CASE_ATTRIBUTES) {
    const value = attributes[key];
    // Identity fields are shortened later (with a hash); this cut only bounds memory.
    if (value !== undefined) kept[key] = cutText(value, limits.maxNameChars * 4) ?? '';
  }
  return {
    index,
    suites,
    attributes: kept,
    properties: {},
    outcomes: [],
  };
}

export function newOutcome(
  owner: CaseBuilder,
  element: OutcomeElement,
  attributes: Readonly<Record<string, string>>,
  limits: JunitLimits,
): OutcomeBuilder {
  return {
    owner,
    element,
    attributes: boundedRecord(attributes, 8, limits.maxMessageChars),
    body: new BoundedTextBuilder(limits.maxBodyChars),
  };
}

export function buildCase(builder: CaseBuilder): RawCase {
  const raw: Mutable<RawCase> = {
    index: builder.index,
    suites: builder.suites,
    attributes: builder.attributes,
    properties: builder.properties,
    outcomes: builder.outcomes,
  };
  const systemOut = builder.systemOut?.build();
  const systemErr = builder.systemErr?.build();
  if (systemOut !== undefined) raw.systemOut = systemOut;
  if (systemErr !== undefined) raw.systemErr = systemErr;
  return raw;
}

export function buildOutcome(builder: OutcomeBuilder, limits: JunitLimits): RawOutcome {
  const { message, type, time } = builder.attributes;
  const seconds = time === undefined ? undefined : parseSeconds(time);
  return {
    element: builder.element,
    ...optional('message', message === '' ? undefined : cutText(message, limits.maxMessageChars)),
    ...optional('type', type === '' ? undefined : cutText(type, limits.maxMessageChars)),
    ...optional('timeSeconds', seconds),
    ...optional('body', builder.body.build()),
    ...optional('systemOut', builder.systemOut?.build()),
    ...optional('systemErr', builder.systemErr?.build()),
  };
}

export function boundedRecord(
  attributes: Readonly<Record<string, string>>,
  maxEntries: number,
  maxChars = MAX_PROPERTY_CHARS,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes).slice(0, maxEntries))
    out[key] = cutText(value, maxChars) ?? '';
  return out;
}
