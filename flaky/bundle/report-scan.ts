/**
 * Counts what decoding a protobuf test report would materialise, before anything is materialised.
 * protobufjs turns every field on the wire into an object, a property, an array element or (for a
 * field it does not know) a kept byte slice, so 2 bytes of input can cost a ~170-byte object: a
 * 1.9 KB zstd bundle unpacks to 20 MiB of empty messages that would cost gigabytes of heap. The
 * scan walks the same tags and lengths protobufjs would, allocating nothing, and stops at the first
 * bound crossed.
 *
 * Rules:
 * - An entry is one field on the wire (tag), at any depth, known or not; the scan charges them to
 *   the upload's {@link DecodeBudget}, shared by every report of one bundle, so a bundle of many small
 *   reports cannot add up to what one large report may not.
 * - Test case runs are counted too and bounded per file (the JUnit parser's maxTestCases).
 * - Nesting (sub-messages, and groups of unknown fields, which protobufjs skips recursively) is
 *   bounded by `maxNesting`.
 * - The scan never judges validity: structure it cannot follow (a length past the end, a bad wire
 *   type) ends it as `malformed`, and protobufjs, which stops at the same place, says why. What was
 *   counted up to there is all protobufjs could have built.
 * - The budget's clock is read every CLOCK_EVERY entries, so a scan stops soon after the time left.
 */
import type protobuf from 'protobufjs';

/** The bounds of one upload's protobuf decoding, spent as its reports are scanned. */
export interface DecodeBudget {
  /** Entries (fields on the wire) every report of the upload may hold together. */
  readonly maxEntries: number;
  /** Deepest nesting of messages and groups. */
  readonly maxNesting: number;
  /** Test case runs one report may hold. */
  readonly maxRunsPerFile: number;
  /** Milliseconds the upload's decoding may take (its CPU time budget: waiting for bytes is free). */
  readonly maxMilliseconds: number;
  readonly now: () => number;
  /** Entries spent so far by the upload's earlier reports. */
  spent: number;
  /** Milliseconds spent so far decoding the upload's earlier reports (the decoder adds them). */
  spentMs: number;
}

export type ScanOutcome =
  | { readonly kind: 'ok'; readonly entries: number; readonly runs: number }
  | { readonly kind: 'malformed'; readonly entries: number }
  | { readonly kind: 'over'; readonly bound: 'entries' | 'nesting' | 'runs' | 'time' };

/** How the scan sees one message type: which field numbers hold which sub-message. */
export interface ScanShape {
  readonly children: ReadonlyMap<number, ScanShape>;
  /** This type is a TestCaseRun (counted per file). */
  readonly isRun: boolean;
}

/** A power of two. */
const CLOCK_EVERY = 4096;

/** The scan's view of a protobufjs type: its message fields, recursively (types may repeat). */
export function scanShapeOf(type: protobuf.Type, runType: protobuf.Type): ScanShape {
  const seen = new Map<protobuf.Type, ScanShape>();
  const build = (t: protobuf.Type): ScanShape => {
    const known = seen.get(t);
    if (known !== undefined) return known;
    const children = new Map<number, ScanShape>();
    const shape: ScanShape = { children, isRun: t === runType };
    seen.set(t, shape);
    for (const field of t.fieldsArray) {
      const resolved = field.resolve().resolvedType;
      // Only sub-messages recurse; an enum is a varint. Duck-typed to avoid a runtime import.
      if (resolved !== null && 'fieldsArray' in resolved) children.set(field.id, build(resolved));
    }
    return shape;
  };
  return build(type);
}

/** Ends a scan from any depth; never escapes scanReport. */
class Stop extends Error {
  constructor(readonly outcome: ScanOutcome) {
    super(outcome.kind);
  }
}

/** Scans `bytes` as a message of `shape`, charging `budget`; spends the budget only when `ok`. */
export function scanReport(bytes: Uint8Array, shape: ScanShape, budget: DecodeBudget): ScanOutcome {
  let pos = 0;
  let entries = 0;
  let runs = 0;
  const remaining = budget.maxEntries - budget.spent;
  const deadline = budget.now() + budget.maxMilliseconds - budget.spentMs;

  const malformed = (): never => {
    throw new Stop({ kind: 'malformed', entries });
  };
  const over = (bound: 'entries' | 'nesting' | 'runs' | 'time'): never => {
    throw new Stop({ kind: 'over', bound });
  };
  const varint = (end: number): number => {
    // Nearly every tag and most lengths are one byte.
    if (pos < end && bytes[pos]! < 0x80) return bytes[pos++]!;
    // As protobufjs's uint32: the low 32 bits of up to 10 bytes.
    let value = 0;
    for (let i = 0; i < 10; i += 1) {
      if (pos >= end) malformed();
      const byte = bytes[pos++]!;
      if (i < 5) value += (byte & 0x7f) * 2 ** (7 * i);
      if (byte < 0x80) return value % 2 ** 32;
    }
    return malformed();
  };
  const charge = () => {
    entries += 1;
    if (entries > remaining) over('entries');
    if ((entries & (CLOCK_EVERY - 1)) === 0 && budget.now() > deadline) over('time');
  };
  const skip = (wireType: number, field: number, end: number, depth: number): void => {
    switch (wireType) {
      case 0:
        varint(end);
        return;
      case 1:
        pos += 8;
        break;
      case 2: {
        // Read first: `pos += varint()` would add the length to pos as it was before the varint.
        const length = varint(end);
        pos += length;
        break;
      }
      case 3:
        // A group of unknown fields, skipped recursively up to its end tag.
        if (depth > budget.maxNesting) over('nesting');
        for (;;) {
          const tag = varint(end);
          if (tag >>> 3 === 0) malformed();
          if ((tag & 7) === 4) {
            if (tag >>> 3 !== field) malformed();
            return;
          }
          charge();
          skip(tag & 7, tag >>> 3, end, depth + 1);
        }
      case 5:
        pos += 4;
        break;
      default:
        malformed();
    }
    if (pos > end) malformed();
  };
  const message = (s: ScanShape, end: number, depth: number): void => {
    if (depth > budget.maxNesting) over('nesting');
    if (s.isRun) {
      runs += 1;
      if (runs > budget.maxRunsPerFile) over('runs');
    }
    while (pos < end) {
      const tag = varint(end);
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === 0) malformed();
      charge();
      const child = wireType === 2 ? s.children.get(field) : undefined;
      if (child === undefined) {
        skip(wireType, field, end, depth + 1);
        continue;
      }
      const length = varint(end);
      const childEnd = pos + length;
      if (childEnd > end) malformed();
      message(child, childEnd, depth + 1);
    }
  };

  try {
    if (budget.spentMs >= budget.maxMilliseconds) over('time');
    message(shape, bytes.length, 0);
  } catch (err) {
    if (err instanceof Stop) return err.outcome;
    // A stack overflow cannot happen below maxNesting; anything else is a bug, not the input's.
    throw err;
  }
  budget.spent += entries;
  return { kind: 'ok', entries, runs };
}
