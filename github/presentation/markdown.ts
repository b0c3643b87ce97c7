/**
 * Text that railyard did not write, made inert before it goes into a GitHub comment or a check run's
 * Markdown: branch and file names, test and status names, API key names, reasons a host or a runner
 * gave, messages that quote them. Every PR author, tenant and test suite is untrusted (issue 24), and
 * a comment posted by the App speaks with the App's voice: it must not mention people or teams
 * (notifications), reference other issues (cross-links), render links, images or HTML, or break the
 * layout around it.
 *
 * Two forms:
 * - `inert(text)`: prose. Line breaks and control characters become spaces, Markdown's control
 *   characters are backslash-escaped (CommonMark escapes any ASCII punctuation), and the things GitHub
 *   links without Markdown (`@mentions`, `#refs` and `GH-` refs, `http://` and `www.` autolinks) are
 *   broken with a zero-width joiner, which renders as nothing.
 * - `code(text)`: an identifier in a code span, where GitHub renders nothing of the above. Backticks
 *   and line breaks (the only ways out of a span) are replaced.
 * Both are bounded (MAX_TEXT, or the caller's bound) and cut with an ellipsis.
 */

export const MAX_TEXT = 200;
/** U+200D ZERO WIDTH JOINER: invisible, and enough to stop GitHub's mention and reference linking. */
export const ZWJ = '\u200D';

// Controls (C0, DEL, C1), line and paragraph separators, and bidirectional overrides.
// eslint-disable-next-line no-control-regex -- replacing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;
const MARKDOWN = /[\\`*_{}[\]()<>#!|~&$-]/g;

function flat(text: string, max: number): string {
  const one = text.replace(CONTROL, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Prose from elsewhere, safe to interpolate into a comment's Markdown (rules above). */
export function inert(text: string, max = MAX_TEXT): string {
  return (
    flat(text, max)
      // Links GitHub makes without Markdown: break them before escaping adds backslashes.
      .replace(/@(?=[A-Za-z0-9])/g, `@${ZWJ}`)
      .replace(/#(?=[0-9])/g, `#${ZWJ}`)
      .replace(/\b(GH)-(?=[0-9])/gi, `$1${ZWJ}-`)
      .replace(/:\/\//g, `:${ZWJ}//`)
      .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}${ZWJ}.`)
      .replace(MARKDOWN, (c) => `\\${c}`)
  );
}

/** An identifier (a branch, a test run id) in a code span: nothing in it renders or links. */
export function code(text: string, max = MAX_TEXT): string {
  return `\`${flat(text.replace(/[`\r\n]/g, "'"), max)}\``;
}

/** A full commit id, left bare so GitHub links it to the commit; anything else in a code span. */
export function sha(text: string): string {
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text : code(text, 64);
}

/** A GitHub login as a mention, or null when it is not one GitHub could have issued. */
export function mention(login: string): string | null {
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$/.test(login) ? `@${login}` : null;
}
