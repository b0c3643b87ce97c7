/**
 * The automaton behind glob.ts: a glob's pieces become a Thompson NFA (at most four states per
 * piece), and a text is matched by carrying the set of every live state forward one character at a
 * time. Nothing ever backtracks: a state is visited at most once per position (a mark per state), so
 * one match costs at most (text length + 1) x (states) steps, whatever the pattern.
 *
 * Invariants:
 * - An automaton is immutable once built and keeps no state between matches; the arrays a match
 *   works in come from a {@link GlobScratch}, which any number of automatons may share, one match at
 *   a time.
 * - `StepMeter.steps` grows by the states built and visited, the same number for the same inputs on
 *   every run: callers bound the work of a whole upload or walk with it, and the bound is
 *   deterministic.
 * - Caseless automatons compare characters as JavaScript's `/i` flag does without `u` (each UTF-16
 *   unit upper-cased when that gives one unit and does not turn a non-ASCII unit into ASCII).
 */

/** One piece of a glob, in the order it must match. */
export type GlobPiece =
  | { readonly kind: 'char'; readonly code: number }
  /** One character of a set (`[a-z]`): inclusive ranges of UTF-16 code units, as start, end pairs. */
  | { readonly kind: 'class'; readonly ranges: readonly number[] }
  /** One character that is not `/` (`?`). */
  | { readonly kind: 'segmentChar' }
  /** Characters that are not `/` (`*`): any number, or at least one. */
  | { readonly kind: 'segmentRun'; readonly atLeastOne: boolean }
  /** Any characters, `/` included: any number, or at least one. */
  | { readonly kind: 'anyRun'; readonly atLeastOne: boolean }
  /** Nothing, or any text that ends with `/`: zero or more leading folders (`**\/`). */
  | { readonly kind: 'folders' }
  /** Zero or more `/name` with non-empty names (gitignore's `/**` followed by another `/`). */
  | { readonly kind: 'innerFolders' };

/** Where a match may begin: at the start of the text, or at the start of any of its segments. */
export type GlobStart = 'text' | 'segment';

/**
 * Where a match may end: only at the end of the text; or (gitignore) at the end of the text or of
 * one of its folders, that is just before or just after a `/`.
 */
export type GlobEnd = 'text' | 'folder';

export interface GlobAutomatonSpec {
  readonly pieces: readonly GlobPiece[];
  readonly start: GlobStart;
  readonly end: GlobEnd;
  readonly caseless: boolean;
}

/** A text prepared for matching: folded once, then matched against any number of automatons. */
export interface GlobText {
  readonly text: string;
  readonly caseless: boolean;
}

export interface StepMeter {
  steps: number;
}

const SLASH = 0x2f;

const CONSUME = 0;
const SPLIT = 1;
const ACCEPT = 2;

const CHAR = 0;
const NOT_SLASH = 1;
const ANY = 2;
const CLASS = 3;

export function globText(text: string, caseless: boolean): GlobText {
  if (!caseless) return { text, caseless };
  // ASCII-only texts (nearly all paths) fold with one native call; others unit by unit.
  // eslint-disable-next-line no-control-regex -- the ASCII range, controls included.
  if (/^[\u0000-\u007f]*$/.test(text)) return { text: text.toUpperCase(), caseless };
  let folded = '';
  for (let i = 0; i < text.length; i += 1) folded += String.fromCharCode(foldCase(text.charCodeAt(i)));
  return { text: folded, caseless };
}

/** Canonicalize() of the ECMAScript spec for a non-unicode case-insensitive pattern. */
export function foldCase(code: number): number {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a ? code - 0x20 : code;
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return folded < 0x80 ? code : folded;
}

/** The unit that lower-cases a folded unit back, when there is one (`[a-z]` holds `a`, not `A`). */
function unfoldCase(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
}

export class GlobAutomaton {
  private readonly op: Uint8Array;
  private readonly test: Uint8Array;
  private readonly arg: Int32Array;
  private readonly next: Int32Array;
  private readonly alt: Int32Array;
  private readonly classes: readonly (readonly number[])[];
  private readonly entry: number;
  private readonly segmentStart: boolean;
  private readonly end: GlobEnd;
  private readonly caseless: boolean;

  constructor(spec: GlobAutomatonSpec) {
    const builder = new Builder(spec.caseless, 4 * spec.pieces.length + 1);
    this.entry = builder.build(spec.pieces);
    const size = builder.size;
    this.op = builder.op.slice(0, size);
    this.test = builder.test.slice(0, size);
    this.arg = builder.arg.slice(0, size);
    this.next = builder.next.slice(0, size);
    this.alt = builder.alt.slice(0, size);
    this.classes = builder.classes;
    this.segmentStart = spec.start === 'segment';
    this.end = spec.end;
    this.caseless = spec.caseless;
  }

  get states(): number {
    return this.op.length;
  }

  /** Whether the glob matches the text; adds the steps spent to `meter`. */
  matches(subject: GlobText, meter?: StepMeter, scratch: GlobScratch = new GlobScratch()): boolean {
    if (subject.caseless !== this.caseless) throw new Error('the text was folded for another glob dialect');
    const { text } = subject;
    const n = text.length;
    const work = scratch.claim(this.op.length, n);
    const { seen, stack, base } = work;
    const { op, test, arg, next, alt, entry, segmentStart } = this;
    let current = work.current;
    let following = work.following;
    let steps = 0;
    let acceptedAt = -1;
    let count = 0;
    let matched = false;
    for (let i = 0; ; i += 1) {
      // Marks are base + position, so a mark left by an earlier match never looks current.
      const mark = base + i;
      if (i === 0 || (segmentStart && text.charCodeAt(i - 1) === SLASH)) {
        // The entry and everything reachable from it without reading a character.
        let top = 0;
        stack[top++] = entry;
        while (top > 0) {
          const s = stack[--top]!;
          if (seen[s] === mark) continue;
          seen[s] = mark;
          steps += 1;
          const kind = op[s];
          if (kind === SPLIT) {
            stack[top++] = alt[s]!;
            stack[top++] = next[s]!;
          } else if (kind === ACCEPT) acceptedAt = i;
          else current[count++] = s;
        }
      }
      if (acceptedAt === i && this.endsAt(text, i)) {
        matched = true;
        break;
      }
      if (i === n) break;
      if (count === 0) {
        if (!segmentStart) break;
        // Nothing is alive: skip to the next segment, where a match may begin again.
        const slash = text.indexOf('/', i);
        if (slash === -1) break;
        i = slash;
        continue;
      }
      const code = text.charCodeAt(i);
      const nextMark = mark + 1;
      let followingCount = 0;
      for (let k = 0; k < count; k += 1) {
        const s = current[k]!;
        steps += 1;
        const kind = test[s];
        if (
          kind === CHAR
            ? code !== arg[s]
            : kind === NOT_SLASH
              ? code === SLASH
              : kind === CLASS && !this.inClass(s, code)
        )
          continue;
        // What the character leads to, and everything reachable from there without reading one.
        let top = 0;
        stack[top++] = next[s]!;
        while (top > 0) {
          const t = stack[--top]!;
          if (seen[t] === nextMark) continue;
          seen[t] = nextMark;
          steps += 1;
          const kind = op[t];
          if (kind === SPLIT) {
            stack[top++] = alt[t]!;
            stack[top++] = next[t]!;
          } else if (kind === ACCEPT) acceptedAt = i + 1;
          else following[followingCount++] = t;
        }
      }
      const swap = current;
      current = following;
      following = swap;
      count = followingCount;
    }
    if (meter) meter.steps += steps;
    return matched;
  }

  private endsAt(text: string, i: number): boolean {
    if (i === text.length) return true;
    if (this.end === 'text') return false;
    return text.charCodeAt(i) === SLASH || (i > 0 && text.charCodeAt(i - 1) === SLASH);
  }

  private inClass(state: number, code: number): boolean {
    const ranges = this.classes[this.arg[state]!]!;
    // The text is folded, the set is as written: a member matches when it folds to the unit.
    return inRanges(ranges, code) || (this.caseless && inRanges(ranges, unfoldCase(code)));
  }
}

/**
 * The arrays one match works in, grown to the largest automaton seen and reused after, so a list of
 * globs matched against many paths allocates nothing per match.
 */
export class GlobScratch {
  private size = 0;
  private seen = new Int32Array(0);
  private stack = new Int32Array(0);
  private current = new Int32Array(0);
  private following = new Int32Array(0);
  private used = 0;

  claim(states: number, textLength: number) {
    if (states > this.size) {
      this.size = states;
      this.seen = new Int32Array(states);
      // A state is pushed at most once per SPLIT pointing at it before it is marked.
      this.stack = new Int32Array(2 * states + 1);
      this.current = new Int32Array(states);
      this.following = new Int32Array(states);
      this.used = 0;
    }
    // This match marks with base .. base + textLength; start over before the marks would overflow.
    if (this.used + textLength + 2 >= 0x7fffffff) {
      this.seen.fill(0);
      this.used = 0;
    }
    const base = this.used + 1;
    this.used += textLength + 2;
    return { seen: this.seen, stack: this.stack, current: this.current, following: this.following, base };
  }
}

function inRanges(ranges: readonly number[], code: number): boolean {
  for (let k = 0; k < ranges.length; k += 2) if (code >= ranges[k]! && code <= ranges[k + 1]!) return true;
  return false;
}

/** Builds the states back to front, so each piece knows the state it continues to. */
class Builder {
  readonly op: Uint8Array;
  readonly test: Uint8Array;
  readonly arg: Int32Array;
  readonly next: Int32Array;
  readonly alt: Int32Array;
  readonly classes: (readonly number[])[] = [];
  size = 0;

  /** `capacity`: four states per piece and the final one are always enough. */
  constructor(
    private readonly caseless: boolean,
    capacity: number,
  ) {
    this.op = new Uint8Array(capacity);
    this.test = new Uint8Array(capacity);
    this.arg = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.alt = new Int32Array(capacity);
  }

  build(pieces: readonly GlobPiece[]): number {
    let entry = this.state(ACCEPT, 0, 0, -1, -1);
    for (let k = pieces.length - 1; k >= 0; k -= 1) entry = this.piece(pieces[k]!, entry);
    return entry;
  }

  private piece(piece: GlobPiece, out: number): number {
    switch (piece.kind) {
      case 'char':
        return this.consume(CHAR, this.caseless ? foldCase(piece.code) : piece.code, out);
      case 'class':
        this.classes.push(piece.ranges);
        return this.consume(CLASS, this.classes.length - 1, out);
      case 'segmentChar':
        return this.consume(NOT_SLASH, 0, out);
      case 'segmentRun':
        return this.run(NOT_SLASH, piece.atLeastOne, out);
      case 'anyRun':
        return this.run(ANY, piece.atLeastOne, out);
      case 'folders': {
        // (?:.*\/)? : skip; or loop on any character, leaving on a `/`.
        const loop = this.state(SPLIT, 0, 0, -1, -1);
        this.next[loop] = this.consume(ANY, 0, loop);
        this.alt[loop] = this.consume(CHAR, SLASH, out);
        return this.state(SPLIT, 0, 0, out, loop);
      }
      case 'innerFolders': {
        // (?:\/[^\/]+)* : leave; or a `/`, one or more non-slashes, and again.
        const loop = this.state(SPLIT, 0, 0, -1, out);
        const name = this.consume(NOT_SLASH, 0, -1);
        this.next[name] = this.state(SPLIT, 0, 0, name, loop);
        this.next[loop] = this.consume(CHAR, SLASH, name);
        return loop;
      }
    }
  }

  private run(test: number, atLeastOne: boolean, out: number): number {
    const loop = this.state(SPLIT, 0, 0, -1, out);
    this.next[loop] = this.consume(test, 0, loop);
    return atLeastOne ? this.consume(test, 0, loop) : loop;
  }

  private consume(test: number, arg: number, out: number): number {
    return this.state(CONSUME, test, arg, out, -1);
  }

  private state(op: number, test: number, arg: number, next: number, alt: number): number {
    const s = this.size++;
    this.op[s] = op;
    this.test[s] = test;
    this.arg[s] = arg;
    this.next[s] = next;
    this.alt[s] = alt;
    return s;
  }
}

/**
 * Runs of plain characters every match must contain (pieces outside any loop or optional part),
 * folded: the one the glob begins with ('' when it begins otherwise) and the longest.
 */
export function requiredLiterals(
  pieces: readonly GlobPiece[],
  caseless: boolean,
): { leading: string; longest: string } {
  let leading: string | undefined;
  let longest = '';
  let run = '';
  for (const piece of pieces) {
    if (piece.kind === 'char') {
      run += String.fromCharCode(caseless ? foldCase(piece.code) : piece.code);
      continue;
    }
    leading ??= run;
    if (run.length > longest.length) longest = run;
    run = '';
  }
  leading ??= run;
  if (run.length > longest.length) longest = run;
  return { leading, longest };
}
