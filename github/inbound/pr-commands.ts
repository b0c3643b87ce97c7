/**
 * Commands in GitHub PR comments (docs/github.md "Commands"): a pure parser of a comment's body.
 *
 *   /trunk merge [--priority=<urgent|high|medium|low|0-255>] [--no-batch]
 *   /trunk cancel
 *   /railyard …   (the same, under railyard's own name)
 *
 * Rules:
 * - A command is a line that starts with `/trunk` or `/railyard` followed by a space or the line's
 *   end (after at most three spaces of indentation, which Markdown still renders as text). Words are
 *   separated by spaces or tabs and compared without regard to case; `--priority` also takes its value
 *   as the next word (`--priority high`).
 * - Lines Markdown renders as something other than text are never commands: fenced code blocks
 *   (``` or ~~~, closed by a fence of the same character at least as long, or open to the end),
 *   indented code (four spaces or a tab), block quotes (`>`) with the lines that continue their
 *   paragraph (a quote ends at a blank line), and HTML comments (`<!--` … `-->`, which GitHub hides).
 * - The first command line decides: a valid one is the comment's command, an invalid one (an unknown
 *   command, flag or value, a flag given twice, a flag `cancel` does not take) is reported with what
 *   is accepted; later command lines are only counted (`ignored`), so a comment acts at most once.
 * - Bounded: a body longer than MAX_COMMENT_LENGTH (GitHub's own limit, 65,536 characters) is not
 *   parsed at all, and reasons quote at most MAX_QUOTED characters of what was written.
 */
import { parsePriority } from '../../engine';

export const MAX_COMMENT_LENGTH = 65_536;
/** Characters of a command line quoted back in a reason. */
export const MAX_QUOTED = 80;

export type PrCommand =
  | {
      kind: 'merge';
      /** 0–255; null = the queue's default (medium). */
      priority: number | null;
      noBatch: boolean;
    }
  | { kind: 'cancel' };

export type CommentParse =
  | { kind: 'none' }
  | {
      kind: 'command';
      command: PrCommand;
      /** The command line as written (trimmed, at most MAX_QUOTED characters). */
      text: string;
      /** Further command lines, not acted on. */
      ignored: number;
    }
  | {
      kind: 'invalid';
      /** What is wrong, as the end of a sentence ("`--force` is not a flag of `merge`"). */
      reason: string;
      text: string;
      ignored: number;
    };

/** The accepted forms, as a reply lists them (never at a line start: a reply is not a command). */
export const ACCEPTED_COMMANDS =
  '`/trunk merge`, `/trunk merge --priority=<urgent|high|medium|low|0-255>`, `/trunk merge --no-batch` and `/trunk cancel` (or `/railyard` in place of `/trunk`)';

const PREFIX = /^ {0,3}\/(trunk|railyard)(?=[ \t]|$)/i;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const QUOTE = /^ {0,3}>/;
const INDENTED_CODE = /^( {4}|\t| {0,3}\t)/;
const BLANK = /^[ \t]*$/;

/** What a code span may show of user text: no backticks, no line breaks, bounded. */
export function quoted(text: string): string {
  const flat = text.replace(/[`\r\n]/g, "'").trim();
  return flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED - 1)}…` : flat;
}

type Parsed = { ok: true; command: PrCommand } | { ok: false; reason: string };

/** The words after `/trunk` or `/railyard`. */
function parseWords(words: readonly string[]): Parsed {
  const [name, ...args] = words;
  if (name === undefined) return { ok: false, reason: 'it names no command' };
  const verb = name.toLowerCase();
  if (verb === 'cancel') {
    if (args.length > 0)
      return { ok: false, reason: `\`cancel\` takes nothing after it (got \`${quoted(args.join(' '))}\`)` };
    return { ok: true, command: { kind: 'cancel' } };
  }
  if (verb !== 'merge') return { ok: false, reason: `\`${quoted(name)}\` is not a command` };

  let priority: number | null = null;
  let prioritySet = false;
  let noBatch = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const lower = arg.toLowerCase();
    if (lower === '--no-batch') {
      if (noBatch) return { ok: false, reason: '`--no-batch` is given twice' };
      noBatch = true;
      continue;
    }
    if (lower === '--priority' || lower.startsWith('--priority=')) {
      if (prioritySet) return { ok: false, reason: '`--priority` is given twice' };
      const value = lower === '--priority' ? args[++i] : arg.slice('--priority='.length);
      if (value === undefined || value === '') return { ok: false, reason: '`--priority` needs a value' };
      // Digits are bounded before parsing, so a huge number is refused, not rounded.
      const parsed = /^\d{1,3}$/.test(value) || !/^\d/.test(value) ? parsePriority(value) : null;
      if (parsed === null)
        return {
          ok: false,
          reason: `\`${quoted(value)}\` is not a priority (urgent, high, medium, low or 0 to 255)`,
        };
      priority = parsed;
      prioritySet = true;
      continue;
    }
    return { ok: false, reason: `\`${quoted(arg)}\` is not a flag of \`merge\`` };
  }
  return { ok: true, command: { kind: 'merge', priority, noBatch } };
}

/**
 * What GitHub shows of a line: complete HTML comments removed, and an unclosed one hiding the rest of
 * the line (and the lines up to its end: `opensComment`). One pass with indexOf, linear in the line.
 */
function shownOf(line: string): { visible: string; opensComment: boolean } {
  let visible = '';
  for (let at = 0; ;) {
    const start = line.indexOf('<!--', at);
    if (start < 0) return { visible: visible + line.slice(at), opensComment: false };
    visible += line.slice(at, start);
    const end = line.indexOf('-->', start + 4);
    if (end < 0) return { visible, opensComment: true };
    at = end + 3;
  }
}

/** The command a comment body carries, if any (see the rules above). */
export function parseComment(body: string): CommentParse {
  if (body.length > MAX_COMMENT_LENGTH) return { kind: 'none' };
  const lines = body.split(/\r\n|\r|\n/);
  let fence: { char: string; length: number } | null = null;
  /** Inside an HTML comment opened on an earlier line. */
  let inHtmlComment = false;
  let inQuote = false;
  let first: Exclude<CommentParse, { kind: 'none' }> | null = null;
  let ignored = 0;

  for (const line of lines) {
    if (fence) {
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length && BLANK.test(close[2]!))
        fence = null;
      continue;
    }
    if (inHtmlComment) {
      if (line.includes('-->')) inHtmlComment = false;
      continue;
    }
    if (BLANK.test(line)) {
      inQuote = false;
      continue;
    }
    const open = FENCE.exec(line);
    // A backtick fence's info string may not hold a backtick (CommonMark); such a line is text.
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      inQuote = false;
      continue;
    }
    if (QUOTE.test(line)) {
      inQuote = true;
      continue;
    }
    // A line right after a quote's line continues its paragraph (CommonMark's lazy continuation).
    if (inQuote) continue;
    if (INDENTED_CODE.test(line)) continue;
    const { visible, opensComment } = shownOf(line);
    if (opensComment) inHtmlComment = true;
    const prefix = PREFIX.exec(visible);
    if (!prefix) continue;
    if (first) {
      ignored++;
      continue;
    }
    const text = quoted(visible);
    const words = visible
      .slice(prefix[0].length)
      .split(/[ \t]+/)
      .filter((w) => w !== '');
    const parsed = parseWords(words);
    first = parsed.ok
      ? { kind: 'command', command: parsed.command, text, ignored: 0 }
      : { kind: 'invalid', reason: parsed.reason, text, ignored: 0 };
  }
  return first ? { ...first, ignored } : { kind: 'none' };
}
