/**
 * Bounds that keep one JUnit file from costing unbounded memory or time.
 *
 * Two kinds of bound, on purpose:
 * - Structural bounds (bytes, test cases, attempts per test, nesting depth) refuse the file with a
 *   {@link JunitParseError}: past them the file is either hostile or not something we can store.
 * - Text bounds (messages, bodies, captured output, names) trim instead: a long stack trace is
 *   normal, and refusing a whole upload over it would lose every other result in it.
 *
 * Identity fields (name, classname, parent, file) are shortened deterministically, keeping a hash
 * of the full value, so two long names that share a prefix still get different test ids.
 */
import { createHash } from 'node:crypto';

export interface JunitLimits {
  /** Refuse a file larger than this (the HTTP body limit is 20 MiB). */
  readonly maxFileBytes: number;
  /** Refuse a file with more `<testcase>` elements than this. */
  readonly maxTestCases: number;
  /** Refuse a file where one test has more attempts than this. */
  readonly maxAttemptsPerTest: number;
  /** Refuse a file nesting elements deeper than this. */
  readonly maxDepth: number;
  /** Identity fields longer than this are shortened (prefix + hash of the whole). */
  readonly maxNameChars: number;
  /** `message` and `type` attributes are cut to this many characters. */
  readonly maxMessageChars: number;
  /** Failure and skip bodies (stack traces) are cut to this many characters. */
  readonly maxBodyChars: number;
  /** `system-out` / `system-err` are cut to this many characters. */
  readonly maxOutputChars: number;
}

export const DEFAULT_JUNIT_LIMITS: JunitLimits = {
  maxFileBytes: 20 * 1024 * 1024,
  maxTestCases: 100_000,
  maxAttemptsPerTest: 100,
  maxDepth: 32,
  maxNameChars: 1_000,
  maxMessageChars: 2_000,
  maxBodyChars: 8_000,
  maxOutputChars: 8_000,
};

export function resolveJunitLimits(overrides: Partial<JunitLimits> = {}): JunitLimits {
  return { ...DEFAULT_JUNIT_LIMITS, ...overrides };
}

/** Text kept up to a bound, remembering how long the whole was. */
export interface BoundedText {
  readonly text: string;
  /** Length of the full text; larger than `text.length` when it was cut. */
  readonly totalChars: number;
}

/** Accumulates text pieces (XML text and CDATA events) without ever holding more than the bound. */
export class BoundedTextBuilder {
  private readonly parts: string[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly maxChars: number) {}

  append(piece: string): void {
    this.total += piece.length;
    const room = this.maxChars - this.kept;
    if (room <= 0) return;
    const part = piece.length <= room ? piece : piece.slice(0, room);
    this.parts.push(part);
    this.kept += part.length;
  }

  /** The text with surrounding blank space removed; `undefined` when nothing but blanks arrived. */
  build(): BoundedText | undefined {
    const text = this.parts.join('').trim();
    if (text === '') return undefined;
    return { text, totalChars: Math.max(this.total, text.length) };
  }
}

export function cutText(value: string | undefined, maxChars: number): string | undefined {
  if (value === undefined) return undefined;
  return value.length <= maxChars ? value : value.slice(0, maxChars);
}

/**
 * Shortens an identity field past `maxChars` to `prefix…#hash16`; the hash covers the whole value
 * so distinct long values stay distinct, and the same value always shortens the same way.
 */
export function shortenIdentityField(value: string, maxChars: number): string {
  if (value.length <= maxChars) return value;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 16);
  const suffix = `…#${hash}`;
  return value.slice(0, Math.max(0, maxChars - suffix.length)) + suffix;
}
