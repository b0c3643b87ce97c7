/**
 * Globs for paths, compiled once and matched in linear time: the one glob matcher of railyard, for
 * CODEOWNERS rules (flaky/codeowners.ts) and for the JUnit file globs of the `command`
 * runner (executor/junit-files.ts). A pattern becomes an automaton (glob-nfa.ts) that never
 * backtracks, so a match costs at most (path length + 1) x (states) steps, with at most four states
 * per pattern character; {@link GlobList} matches one path against many globs and can count the
 * steps, so callers bound a whole upload or walk.
 *
 * Two dialects, each the semantics railyard had before (backtracking regular expressions):
 *
 * `codeowners` — gitignore rules as the `ignore` package (5.x, through codeowners-utils) applied them:
 *  - a pattern with a `/` at its start or middle is anchored at the repository root; one without
 *    (or with only a trailing one) matches at any depth; a leading `**\/` matches at any depth too;
 *  - a match may end at the end of the path or of any of its folders: `docs` owns `docs/a/b.md`;
 *    a trailing `/` matches folders only (`e2e/` owns everything under `e2e`);
 *  - `*` and `?` stay within one segment; `/**\/` is zero or more folders, a trailing `/**`
 *    everything inside; `**` elsewhere is `*`; a final `*` right after a `/` needs one character;
 *  - `[abc]`, `[a-z]` are sets (`!` and `^` are members, not negation; out-of-order ranges are
 *    dropped); `[]` or a set never closed matches nothing; a `[` with a `/` before its `]` is a plain
 *    character (the old code failed on those);
 *  - `\` makes the next character plain, as in gitignore (the old matcher mishandled some escapes,
 *    `a\?b` matched nothing); a pattern that ends in a lone `\`, or starts with `!` (negation, which
 *    CODEOWNERS does not have), matches nothing;
 *  - letters match regardless of case.
 * A differential run against `ignore` 5.3.2 over random patterns without escapes or unbalanced
 * brackets (about two million pairs) found no difference.
 *
 * `junit` — the whole path: `**\/` is zero or more folders, `**` elsewhere anything, `*` and `?`
 * within one segment, every other character (`[` included) plain; case-sensitive.
 */
import {
  GlobAutomaton,
  type GlobEnd,
  type GlobPiece,
  GlobScratch,
  type GlobStart,
  globText,
  type GlobText,
  requiredLiterals,
  type StepMeter,
} from './glob-nfa';

export { type StepMeter } from './glob-nfa';

export type GlobDialect = 'codeowners' | 'junit';

/** A path folded for one dialect; prepare it once for a whole {@link GlobList}. */
export type PreparedPath = GlobText;

export interface Glob {
  readonly pattern: string;
  readonly dialect: GlobDialect;
  matches(path: string, meter?: StepMeter): boolean;
}

export function compileGlob(pattern: string, dialect: GlobDialect): Glob {
  const list = new GlobList([pattern], dialect);
  return { pattern, dialect, matches: (path, meter) => list.matchesAt(0, list.prepare(path), meter) };
}

/** What is known of a glob before its automaton is built. */
interface Entry {
  readonly pattern: string;
  /** False for a pattern that can match nothing. */
  readonly possible: boolean;
  /** Characters every match begins with at the start of the path, folded ('' when none is known). */
  readonly prefix: string;
  /** The longest run of characters every match contains, folded ('' when there is none). */
  readonly infix: string;
  /** Built when a path first gets past the literal checks. */
  automaton: GlobAutomaton | undefined;
}

/**
 * Many globs of one dialect, matched against paths one at a time: the path is folded once for all of
 * them, and a glob is first tried by the characters every match of it must contain (native string
 * search). Automatons are built only for globs a path gets past that check, and building one counts
 * its states as steps, so a long list of patterns no path comes near costs little.
 */
export class GlobList {
  private readonly entries: readonly Entry[];
  private readonly caseless: boolean;
  private readonly scratch = new GlobScratch();

  constructor(
    readonly patterns: readonly string[],
    readonly dialect: GlobDialect,
  ) {
    this.caseless = dialect === 'codeowners';
    this.entries = patterns.map((pattern) => {
      const shape = shapeOf(pattern, dialect);
      if (shape === null) return { pattern, possible: false, prefix: '', infix: '', automaton: undefined };
      const literals = requiredLiterals(shape.pieces, this.caseless);
      const prefix = shape.start === 'text' ? literals.leading : '';
      return { pattern, possible: true, prefix, infix: literals.longest, automaton: undefined };
    });
  }

  get length(): number {
    return this.entries.length;
  }

  prepare(path: string): PreparedPath {
    return globText(path, this.caseless);
  }

  /**
   * The folded top folder every match of glob `index` is in, when its pattern spells it out from the
   * start (`/src/payments/`): lets a caller skip globs of other top folders without trying them.
   */
  leadingSegment(index: number): string | undefined {
    const prefix = this.entry(index).prefix;
    const slash = prefix.indexOf('/');
    return slash === -1 ? undefined : prefix.slice(0, slash);
  }

  matchesAt(index: number, path: PreparedPath, meter?: StepMeter): boolean {
    const entry = this.entry(index);
    if (!entry.possible) return false;
    if (meter) meter.steps += 1;
    if (!path.text.startsWith(entry.prefix) || !path.text.includes(entry.infix)) return false;
    if (entry.automaton === undefined) {
      const shape = shapeOf(entry.pattern, this.dialect)!;
      entry.automaton = new GlobAutomaton({ ...shape, caseless: this.caseless });
      if (meter) meter.steps += entry.automaton.states;
    }
    return entry.automaton.matches(path, meter, this.scratch);
  }

  /** Index of the first glob that matches, or -1. */
  firstMatch(path: string, meter?: StepMeter): number {
    const prepared = this.prepare(path);
    for (let i = 0; i < this.entries.length; i += 1) if (this.matchesAt(i, prepared, meter)) return i;
    return -1;
  }

  private entry(index: number): Entry {
    const entry = this.entries[index];
    if (entry === undefined) throw new RangeError(`no glob at ${index}`);
    return entry;
  }
}

/** The pieces, start and end of a pattern, or null when it can match nothing. */
function shapeOf(pattern: string, dialect: GlobDialect): Shape | null {
  switch (dialect) {
    case 'codeowners':
      return gitignoreShape(pattern);
    case 'junit':
      return { pieces: junitPieces(pattern), start: 'text', end: 'text' };
  }
}

interface Shape {
  pieces: GlobPiece[];
  start: GlobStart;
  end: GlobEnd;
}

const char = (c: string): GlobPiece => ({ kind: 'char', code: c.charCodeAt(0) });

function junitPieces(pattern: string): GlobPiece[] {
  const pieces: GlobPiece[] = [];
  for (let i = 0; i < pattern.length;) {
    if (pattern.startsWith('**/', i)) {
      pieces.push({ kind: 'folders' });
      i += 3;
    } else if (pattern.startsWith('**', i)) {
      pieces.push({ kind: 'anyRun', atLeastOne: false });
      i += 2;
    } else {
      const c = pattern[i]!;
      pieces.push(
        c === '*' ? { kind: 'segmentRun', atLeastOne: false } : c === '?' ? { kind: 'segmentChar' } : char(c),
      );
      i += 1;
    }
  }
  return simplify(pieces);
}

/** The pieces, start and end of a gitignore pattern, or null when it can match nothing. */
function gitignoreShape(raw: string): Shape | null {
  // A lone trailing backslash escapes nothing: the `ignore` package dropped such rules.
  if (raw === '' || /(?:^|[^\\])\\$/.test(raw) || raw.startsWith('!')) return null;
  const pattern = raw.startsWith('\\!') || raw.startsWith('\\#') ? raw.slice(1) : raw;
  let rest = pattern;
  let start: GlobStart = /\/(?!$)/.test(pattern) ? 'text' : 'segment';
  let leadingSlash = false;
  if (rest.startsWith('/')) {
    rest = rest.slice(1);
    leadingSlash = true;
    start = 'text';
  }
  if (rest.startsWith('**/')) {
    // `**/x` is `x` at any depth (and so is `/**/x`).
    rest = rest.slice(3);
    start = 'segment';
    leadingSlash = false;
  }
  const end: GlobEnd = 'folder';
  const pieces: GlobPiece[] = [];
  for (let i = 0; i < rest.length;) {
    const c = rest[i]!;
    if (c === '\\' && i + 1 < rest.length) {
      pieces.push(char(rest[i + 1]!));
      i += 2;
    } else if (c === '/' && rest.startsWith('**', i + 1) && (i + 3 === rest.length || rest[i + 3] === '/')) {
      if (i + 3 === rest.length) {
        // A trailing `/**`: everything inside, not the folder itself.
        pieces.push(char('/'), { kind: 'anyRun', atLeastOne: true });
      } else {
        // `/**/`: zero or more folders; the `/` after them is matched as itself.
        pieces.push({ kind: 'innerFolders' });
      }
      i += 3;
    } else if (c === '*') {
      // The old regular expression wanted one character for a final `*` right after a `/` (or a
      // leading one, or, by a quirk kept here, a `^`).
      const last = i === rest.length - 1;
      const afterSlash = i === 0 ? leadingSlash : rest[i - 1] === '/' || rest[i - 1] === '^';
      pieces.push({ kind: 'segmentRun', atLeastOne: last && afterSlash });
      i += 1;
    } else if (c === '?') {
      pieces.push({ kind: 'segmentChar' });
      i += 1;
    } else if (c === '[') {
      const set = characterSet(rest, i);
      if (set.kind === 'never') return null;
      if (set.kind === 'plain') {
        pieces.push(char('['));
        i += 1;
      } else {
        pieces.push({ kind: 'class', ranges: set.ranges });
        i = set.next;
      }
    } else {
      pieces.push(char(c));
      i += 1;
    }
  }
  return { pieces: simplify(pieces), start, end };
}

type CharacterSet =
  | { kind: 'set'; ranges: number[]; next: number }
  /** `[]`, or a set the pattern never closes: the old matcher matched nothing for these. */
  | { kind: 'never' }
  /** A `/` before the closing `]`: a set cannot hold a folder separator, so `[` is plain. */
  | { kind: 'plain' };

function characterSet(pattern: string, open: number): CharacterSet {
  const close = pattern.indexOf(']', open + 1);
  const slash = pattern.indexOf('/', open + 1);
  if (slash !== -1 && (close === -1 || slash < close)) return { kind: 'plain' };
  if (close === -1 || close === open + 1) return { kind: 'never' };
  const members = pattern.slice(open + 1, close);
  const ranges: number[] = [];
  for (let k = 0; k < members.length;) {
    const from = members.charCodeAt(k);
    if (members[k + 1] === '-' && k + 2 < members.length) {
      const to = members.charCodeAt(k + 2);
      // As the `ignore` package did: an out-of-order range is dropped, not an error.
      if (from <= to) ranges.push(from, to);
      k += 3;
    } else {
      ranges.push(from, from);
      k += 1;
    }
  }
  return ranges.length === 0 ? { kind: 'never' } : { kind: 'set', ranges, next: close + 1 };
}

/**
 * Merges neighbours that match the same texts as one of them: `**\/**\/` is `**\/`, `**` `**` is
 * `**`, `*` `*` is `*`. Fewer states, same language.
 */
function simplify(pieces: GlobPiece[]): GlobPiece[] {
  const out: GlobPiece[] = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last !== undefined && absorbs(last, piece)) {
      if (piece.kind === 'segmentRun' && piece.atLeastOne) out[out.length - 1] = piece;
      continue;
    }
    out.push(piece);
  }
  return out;
}

function absorbs(last: GlobPiece, piece: GlobPiece): boolean {
  switch (piece.kind) {
    case 'folders':
    case 'innerFolders':
      return last.kind === piece.kind;
    case 'anyRun':
      return last.kind === 'anyRun' && !last.atLeastOne && !piece.atLeastOne;
    case 'segmentRun':
      return last.kind === 'segmentRun' && !last.atLeastOne;
    case 'char':
    case 'class':
    case 'segmentChar':
      return false;
  }
}
