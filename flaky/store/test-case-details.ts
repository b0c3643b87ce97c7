/**
 * The per-test figures of the spec's TestCase object as LATERAL joins, shared by every read that
 * shows a test (test-case-reads.ts builds records from them, test-case-json.ts builds the wire JSON):
 *  - `rates` (a7, f7, a24, f24): attempts and failures over the last 7 days and 24 hours, from
 *    non-skipped attempts of non-infra uploads: whole days from test_day_rollups, the partial days
 *    at the window edges from the covering index on raw attempts (windows.ts);
 *  - `prs` (n): distinct PRs with a non-infra failure over 7 days: test_pr_failures, edges from raw
 *    attempts;
 *  - `fails` (list): the most common failure fingerprints over the last W_FAIL UTC days, either as a
 *    json array of {summary, occurrences, last} (records) or as the wire's most_common_failures text.
 * Each join is bounded by the test's key and by time; none scans raw results beyond two partial days.
 *
 * The joins read `t` (a test_cases row) and `rp` (its repository row: the classification overrides).
 * A part that is not wanted is a constant with the same columns, so callers read the same names.
 */
import { CLASSIFICATION_BOUNDS, DEFAULT_CLASSIFICATION_PARAMS, type NumberBound } from '../classification';
import { type SqlParams } from './sql-params';
import { dayOf, splitWindow } from './windows';

const DAY_MS = 86_400_000;
const { topFailures, failureWindowDays } = DEFAULT_CLASSIFICATION_PARAMS;
// Stored overrides are read at their upper bound, as capStoredOverrides does for the classifier.
const maxOf = (bound: NumberBound) => (bound.kind === 'ratio' ? 1 : bound.max);
const MAX_WINDOW_DAYS = maxOf(CLASSIFICATION_BOUNDS.failureWindowDays);
const MAX_TOP_FAILURES = maxOf(CLASSIFICATION_BOUNDS.topFailures);

export interface DetailParts {
  readonly rates: boolean;
  readonly prs: boolean;
  readonly failures: 'records' | 'wire' | 'none';
}

/** `expr` (a timestamptz) as Date.prototype.toISOString() writes it: UTC, milliseconds truncated. */
export const isoSql = (expr: string) =>
  `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `to_json(text)` escapes exactly as JSON.stringify does for any text PostgreSQL can hold. */
export const jsonText = (expr: string) => `to_json(${expr})::text`;

export function detailJoins(p: SqlParams, now: Date, parts: DetailParts): string {
  const week = splitWindow(new Date(now.getTime() - 7 * DAY_MS), now);
  // Only the parts asked for add parameters: PostgreSQL refuses a parameter no expression types.
  const weekly =
    parts.rates || parts.prs
      ? {
          days: { from: p.add(week.fullFrom, 'date'), to: p.add(week.fullTo, 'date') },
          edges: week.edges.map((e) => ({ start: p.add(e.start), end: p.add(e.end) })),
        }
      : undefined;
  return [
    parts.rates && weekly !== undefined
      ? ratesJoin(p, weekly.days, weekly.edges, splitWindow(new Date(now.getTime() - DAY_MS), now))
      : `CROSS JOIN (SELECT 0 AS a7, 0 AS f7, 0 AS a24, 0 AS f24) rates`,
    parts.prs && weekly !== undefined ? prsJoin(weekly.days, weekly.edges) : `CROSS JOIN (SELECT 0 AS n) prs`,
    parts.failures === 'none'
      ? `CROSS JOIN (SELECT '[]'::json AS list) fails`
      : failuresJoin(p, now, parts.failures),
  ].join('\n');
}

type Range = { readonly from: string; readonly to: string };
type Edge = { readonly start: string; readonly end: string };

function ratesJoin(p: SqlParams, weekDays: Range, weekEdges: Edge[], day: ReturnType<typeof splitWindow>) {
  const dayDays = { from: p.add(day.fullFrom, 'date'), to: p.add(day.fullTo, 'date') };
  const dayEdges = day.edges.map((e) => ({ start: p.add(e.start), end: p.add(e.end) }));
  const raw = (edge: Edge, week: boolean) =>
    `SELECT ${week ? "1, (r.outcome = 'fail')::int, 0, 0" : "0, 0, 1, (r.outcome = 'fail')::int"}
     FROM test_results r WHERE r.test_pk = t.pk AND r.at >= ${edge.start} AND r.at < ${edge.end}
       AND r.outcome <> 'skip' AND NOT r.infra`;
  return `CROSS JOIN LATERAL (
  SELECT coalesce(sum(a7), 0)::int AS a7, coalesce(sum(f7), 0)::int AS f7,
         coalesce(sum(a24), 0)::int AS a24, coalesce(sum(f24), 0)::int AS f24
  FROM (
    SELECT d.attempts AS a7, d.failures AS f7, 0 AS a24, 0 AS f24 FROM test_day_rollups d
      WHERE d.test_pk = t.pk AND d.day >= ${weekDays.from} AND d.day < ${weekDays.to}
    UNION ALL
    SELECT 0, 0, d.attempts, d.failures FROM test_day_rollups d
      WHERE d.test_pk = t.pk AND d.day >= ${dayDays.from} AND d.day < ${dayDays.to}
    UNION ALL ${raw(weekEdges[0]!, true)}
    UNION ALL ${raw(weekEdges[1]!, true)}
    UNION ALL ${raw(dayEdges[0]!, false)}
    UNION ALL ${raw(dayEdges[1]!, false)}
  ) x
) rates`;
}

function prsJoin(weekDays: Range, weekEdges: Edge[]) {
  const raw = (edge: Edge) =>
    `SELECT u.pr_number FROM test_results r JOIN uploads u ON u.pk = r.upload_pk
     WHERE r.test_pk = t.pk AND r.at >= ${edge.start} AND r.at < ${edge.end} AND r.outcome = 'fail'
       AND NOT r.infra AND u.pr_number IS NOT NULL`;
  return `CROSS JOIN LATERAL (
  SELECT count(DISTINCT pr)::int AS n FROM (
    SELECT p.pr_number AS pr FROM test_pr_failures p
      WHERE p.test_pk = t.pk AND p.day >= ${weekDays.from} AND p.day < ${weekDays.to}
    UNION ALL ${raw(weekEdges[0]!)}
    UNION ALL ${raw(weekEdges[1]!)}
  ) x
) prs`;
}

function failuresJoin(p: SqlParams, now: Date, as: 'records' | 'wire') {
  const today = p.add(dayOf(now), 'date');
  const limits = failureLimits(p);
  const live = failureListSql(today, limits, as);
  if (as === 'records') return `CROSS JOIN LATERAL (${live}) fails`;
  // The wire list from the test's summary when it answers for today with the repository's limits
  // (test-case-summaries.ts); else the same list computed here. COALESCE evaluates its second
  // subquery only when the first is null, so a page pays for the tests without a valid summary.
  return `CROSS JOIN LATERAL (
  SELECT coalesce((${validSummarySql(today, limits)}), (SELECT list FROM (${live}) live)) AS list
) fails`;
}

/** The repository's failure window (whole days) and top-N, as the classifier reads its overrides. */
export interface FailureLimits {
  readonly windowDays: string;
  readonly top: string;
}

/** SQL expressions (reading `rp.classification`) of the limits that apply to a test's repository. */
export function failureLimits(p: SqlParams): FailureLimits {
  const windowDays = p.add(failureWindowDays, 'float8');
  const top = p.add(topFailures, 'int');
  return {
    windowDays: `LEAST(coalesce((rp.classification->>'failureWindowDays')::float8, ${windowDays}), ${MAX_WINDOW_DAYS})::int`,
    top: `LEAST(coalesce((rp.classification->>'topFailures')::int, ${top}), ${MAX_TOP_FAILURES})`,
  };
}

/**
 * One row: `list`, the most common failure fingerprints of test `t` over the failure window ending on
 * day `today` (every stored day from its first, none after excluded), and `oldest`, the first day it
 * counted (null when none). Shared by the read and the fold's summaries so they cannot disagree.
 */
export function failureListSql(today: string, limits: FailureLimits, as: 'records' | 'wire'): string {
  const order = 'g.n DESC, g.last DESC, g.summary';
  const list =
    as === 'records'
      ? `coalesce(json_agg(json_build_object('summary', g.summary, 'occurrences', g.n, 'last', g.last)
           ORDER BY ${order}), '[]')`
      : // TestCaseWire.most_common_failures, in its key order.
        `'[' || coalesce(string_agg('{"summary":' || ${jsonText('g.summary')} || ',"occurrence_count":' || g.n
           || ',"last_occurrence":"' || ${isoSql('g.last')} || '"}', ',' ORDER BY ${order}), '') || ']'`;
  return `SELECT ${list} AS list, min(g.oldest) AS oldest
  FROM (
    SELECT min(f.summary) AS summary, sum(f.occurrences)::int AS n, max(f.last_seen_at) AS last,
      min(f.day) AS oldest
    FROM test_failure_fingerprints f
    WHERE f.test_pk = t.pk AND f.day >= ${today} - (${limits.windowDays} - 1)
    GROUP BY f.fingerprint
    ORDER BY n DESC, last DESC, summary
    LIMIT ${limits.top}
  ) g`;
}

/** The summary's list when it answers for day `today` under `limits` (null otherwise). */
function validSummarySql(today: string, limits: FailureLimits): string {
  return `SELECT s.most_common_failures FROM test_case_summaries s
    WHERE s.test_pk = t.pk AND s.window_days = ${limits.windowDays} AND s.top_failures = ${limits.top}
      AND ${today} BETWEEN s.from_day AND s.through_day`;
}
