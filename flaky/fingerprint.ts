/**
 * Failure fingerprints group "the same failure" across runs for `most_common_failures`.
 *
 * Rule: take the first meaningful line of the failure (the message attribute unless it is a
 * placeholder like Go's "Failed", else the body: pytest's first `E   ` line, or the first line that
 * is not test-runner framing), normalise away whatever changes from run to run (ANSI colours,
 * UUIDs, timestamps, temp paths, hex addresses, durations, numbers — which covers line and column
 * numbers), collapse blanks, cut to 200 characters, and hash it together with the failure type
 * when the type says something. The hash is 16 hex characters of SHA-256.
 *
 * Invariant: the fingerprint depends only on the failure's own text, so it is the same whichever
 * upload or attempt it came from, and stable across releases unless this file changes.
 */
import { createHash } from 'node:crypto';

export interface FailureText {
  readonly message?: string;
  readonly type?: string;
  readonly body?: string;
}

export interface FailureFingerprint {
  /** 16 hex characters; equal for failures that differ only in volatile details. */
  readonly fingerprint: string;
  /** The normalised line the hash covers: stable, safe to show as a group's summary. */
  readonly summary: string;
  /** The same line before normalisation (colours stripped, blanks collapsed), as an example. */
  readonly sample: string;
}

const MAX_LINE_CHARS = 200;
const NO_MESSAGE = '(no failure message)';
const PLACEHOLDER_MESSAGES = /^(failed|failure|fail|error|errored|runtime error|skipped|assertion failed)$/i;
const PLACEHOLDER_TYPES = /^(failure|failed|error)?$/i;
const LOCATION_ONLY = /^\S+:\d+:\d+\s/; // Playwright's older "spec.ts:10:5 title" message says where, not what
const NOISE_LINES = [
  /^[\s\-=_─━*~#.·•]*$/, // blank lines and separators
  /^=== (RUN|PAUSE|CONT|NAME)\b/, // go test framing
  /^--- (FAIL|PASS|SKIP):/,
  /^(FAIL|ok|PASS)\s/,
  /^\[[^\]]*\] › /, // Playwright's "[project] › file:line:col › title ────" header
  /^at\s/, // stack frames
];

export function fingerprintFailure(failure: FailureText): FailureFingerprint {
  const raw = collapse(stripAnsi(firstMeaningfulLine(failure)));
  const sample = raw.slice(0, MAX_LINE_CHARS);
  const summary = normaliseFailureLine(raw);
  const type = failure.type?.trim() ?? '';
  const typed = PLACEHOLDER_TYPES.test(type) ? '' : type;
  const fingerprint = createHash('sha256').update(`${typed}\n${summary}`).digest('hex').slice(0, 16);
  return { fingerprint, summary, sample };
}

export function firstMeaningfulLine(failure: FailureText): string {
  const message = failure.message?.trim() ?? '';
  if (message !== '' && !PLACEHOLDER_MESSAGES.test(message) && !LOCATION_ONLY.test(message)) {
    const line = meaningfulLines(message)[0];
    if (line !== undefined) return line;
  }
  const bodyLines = meaningfulLines(failure.body ?? '');
  const pytestError = bodyLines.find((line) => /^E\s+\S/.test(line));
  if (pytestError !== undefined) return pytestError.replace(/^E\s+/, '');
  return bodyLines[0] ?? (failure.type?.trim() || message || NO_MESSAGE);
}

export function normaliseFailureLine(line: string): string {
  return collapse(
    stripAnsi(line)
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(
        /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g,
        '<time>',
      )
      .replace(/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>')
      .replace(/(?:\/private)?\/(?:tmp|var\/tmp|var\/folders)\/[^\s'"`),;]*/g, '<tmp>')
      .replace(/[A-Za-z]:\\[^\s'"`]*\\Temp\\[^\s'"`),;]*/gi, '<tmp>')
      .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
      .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>')
      .replace(
        /\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|secs|seconds|min|mins|minutes|h|hours)\b/gi,
        '<duration>',
      )
      .replace(/\d+(?:\.\d+)*/g, '<n>'),
  ).slice(0, MAX_LINE_CHARS);
}

function meaningfulLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => stripAnsi(line).trim())
    .filter((line) => !NOISE_LINES.some((noise) => noise.test(line)));
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
