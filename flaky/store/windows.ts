/**
 * Time windows over the rollups: a half-open window [from, to) is read as the whole UTC days it
 * covers (from the per-day rollups) plus at most two partial days at its edges (from raw attempts,
 * through narrow indexes). The split is exact: every instant of the window is in exactly one part,
 * so a count over the parts equals a count over raw results.
 *
 * Always two edges, possibly empty (start = end), so the SQL that reads them has a fixed shape.
 */

const DAY_MS = 86_400_000;

export interface SplitWindow {
  /** First whole day, `YYYY-MM-DD` (inclusive). */
  readonly fullFrom: string;
  /** End of the whole days, `YYYY-MM-DD` (exclusive); equal to fullFrom when there are none. */
  readonly fullTo: string;
  /** The partial days before and after the whole ones, each [start, end). */
  readonly edges: readonly [Edge, Edge];
}

export interface Edge {
  readonly start: Date;
  readonly end: Date;
}

export function splitWindow(from: Date, to: Date): SplitWindow {
  const fromMs = from.getTime();
  const toMs = Math.max(fromMs, to.getTime());
  const firstWhole = Math.ceil(fromMs / DAY_MS) * DAY_MS;
  const wholeEnd = Math.floor(toMs / DAY_MS) * DAY_MS;
  if (firstWhole >= wholeEnd) {
    const none = dayOf(new Date(firstWhole));
    return { fullFrom: none, fullTo: none, edges: [edge(fromMs, toMs), edge(toMs, toMs)] };
  }
  return {
    fullFrom: dayOf(new Date(firstWhole)),
    fullTo: dayOf(new Date(wholeEnd)),
    edges: [edge(fromMs, firstWhole), edge(wholeEnd, toMs)],
  };
}

/** The UTC day of an instant, as PostgreSQL's `date` text. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` before the day of `at`. */
export function daysBefore(at: Date, days: number): string {
  return dayOf(new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS - days * DAY_MS));
}

function edge(start: number, end: number): Edge {
  return { start: new Date(start), end: new Date(end) };
}
