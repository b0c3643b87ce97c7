/**
 * The last guard on what a queue hands to continue-as-new. Temporal refuses a payload over 2 MB, and a
 * queue whose continue-as-new is refused (or whose closing task outlasts its timeout compressing it)
 * cannot go on. The budgets bound what submitters send (commit-budget.ts, targets-budget.ts); what the
 * host says is bounded in count only: a PR's title, at most 256 characters, is carried with each queued
 * PR (its display title and its description's `merge-commit-title:`) and with each kept run, and titles
 * of emoji noise (12 bytes a character as carried, compressing badly) chosen by PR authors would take
 * a full queue near the limit, and its compression to seconds of the closing task.
 *
 * Rule: when the titles would carry more than TITLES_BUDGET_BYTES (counted as carried, before
 * compression: carry-codec.ts `carriedBytes`), every title is cut to TITLE_CUTS[0] bytes as carried,
 * then TITLE_CUTS[1] if that is not enough (at character boundaries, never inside an emoji; an ASCII
 * title keeps the most characters), before the state is encoded once. The cut is logged as an error by the caller: the queue goes on, with shorter
 * titles on its records and on the commits it lands. Within the budget (every recorded history; 1,000
 * queued PRs with two 256-character ASCII titles each) the state is carried exactly as encodeCarried
 * makes it. Pure and deterministic.
 */
import type { Carried } from './carried';
import { encodeCarried, type EncodedCarried } from './carry-codec';
import { carriedBytes } from './carry-codec';

export const TITLES_BUDGET_BYTES = 768 * 1024;
/** What each title may take as carried, tried in turn: 190 ASCII characters, or 15 emoji; then a third. */
export const TITLE_CUTS = [192, 64] as const;

export interface FittedCarried {
  readonly carried: EncodedCarried | Carried;
  /** Bytes of the payload handed on. */
  readonly bytes: number;
  /** The titles' bytes as carried, before any cut. */
  readonly titleBytes: number;
  /** The bytes (as carried) every title was cut to; null when nothing was cut. */
  readonly cutTo: number | null;
}

/** Bytes of a carried payload as Temporal's JSON converter writes it (UTF-8). */
export function payloadBytes(carried: EncodedCarried | Carried): number {
  const json = JSON.stringify(carried);
  let bytes = 0;
  for (let i = 0; i < json.length; i += 1) {
    const code = json.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes the state's PR, run and commit titles take as carried, before compression. */
export function titleBytes(c: Carried): number {
  let bytes = 0;
  for (const meta of Object.values(c.prs)) {
    bytes += carriedBytes(meta.title);
    if (meta.commitMessage?.title !== undefined) bytes += carriedBytes(meta.commitMessage.title);
  }
  for (const run of c.runs) for (const title of Object.values(run.titles)) bytes += carriedBytes(title);
  return bytes;
}

/** The state to hand to continue-as-new: its titles cut first when they are over their budget. */
export function fitCarried(c: Carried): FittedCarried {
  const before = titleBytes(c);
  let state = c;
  let cutTo: number | null = null;
  for (const bytes of TITLE_CUTS) {
    if ((cutTo === null ? before : titleBytes(state)) <= TITLES_BUDGET_BYTES) break;
    state = withTitlesCut(c, bytes);
    cutTo = bytes;
  }
  const carried = encodeCarried(state);
  return { carried, bytes: payloadBytes(carried), titleBytes: before, cutTo };
}

/** `text` cut at a character boundary to take at most `bytes` as carried (`carriedBytes`). */
export function cutTitle(text: string, bytes: number): string {
  if (carriedBytes(text) <= bytes) return text;
  let taken = 2;
  let end = 0;
  for (const ch of text) {
    const cost = carriedBytes(ch) - 2;
    if (taken + cost > bytes) break;
    taken += cost;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** A copy of the state with every PR title, run title and commit title cut to `bytes` as carried. */
export function withTitlesCut(c: Carried, bytes: number): Carried {
  const cut = (text: string) => cutTitle(text, bytes);
  const copy = JSON.parse(JSON.stringify(c)) as Carried;
  for (const meta of Object.values(copy.prs)) {
    meta.title = cut(meta.title);
    if (meta.commitMessage?.title !== undefined) meta.commitMessage.title = cut(meta.commitMessage.title);
  }
  for (const run of copy.runs)
    run.titles = Object.fromEntries(Object.entries(run.titles).map(([pr, title]) => [pr, cut(title)]));
  return copy;
}
