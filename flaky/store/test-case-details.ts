/**
 * The per-test figures of the spec's TestCase object as LATERAL joins, shared by every read that
 * shows a test (test-case-reads.ts builds records from them, test-case-json.ts builds the wire JSON):
 *  - `figures` (a7, f7, a24, f24, prs): attempts and failures over the last 7 days and 24 hours, from
 *    non-skipped attempts of non-infra uploads, and the distinct PRs with a non-infra failure over the
 *    7 days; whole days from test_day_rollups and test_pr_failures, the partial days at the window
 *    edges from the covering index on raw attempts (windows.ts), each raw attempt read once even
 *    where the two windows' partial days overlap (figuresJoin);
 *  - `fails` (list): the most common failure fingerprints over the last W_FAIL UTC days, either as a
 *    json array of {summary, occurrences, last} (records) or as the wire's most_common_failures text.
 * Each join is bounded by the test's key and by time; none scans raw results beyond two partial days.
 *
 * The joins read `t` (a test_cases row) and `rp` (its repository row: the classification overrides).
 * A part that is not wanted is a constant with the same columns, so callers read the same names.
 */
import { CLASSIFICATION_BOUNDS, DEFAULT_CLASSIFICATION_PARAMS, type NumberBound } from '../classification';
import { type SqlParams } from './sql-params';
import { dayOf, type Edge, splitWindow } from './windows';

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
  return [
    parts.rates || parts.prs
      ? figuresJoin(p, now, parts.rates, parts.prs)
      : `CROSS JOIN (SELECT 0 AS a7, 0 AS f7, 0 AS a24, 0 AS f24, 0 AS prs) figures`,
    parts.failures === 'none'
      ? `CROSS JOIN (SELECT '[]'::json AS list) fails`
      : failuresJoin(p, now, parts.failures),
  ].join('\n');
}

/**
 * `figures` (a7, f7, a24, f24, prs) in one pass per test: the week's whole days from the rollups
 * (the 24 hours' whole days, if any, are among them), the PRs of those days from test_pr_failures,
 * and the raw attempts of the partial days in two spans, each row counted in whichever windows it
 * falls in:
 *  - span A, the week's first partial day (6 to 7 days ago);
 *  - span B, the recent one: the week's last partial day (today) and, with rates, both partial days
 *    of the 24 hours, which overlap it (today's attempts count in both windows but are read once).
 * A ends before B starts (7 days against 24 hours). A PR is looked up only for a failing attempt
 * counted in the week. The shape does not depend on `now` (the statements are prepared by name).
 */
function figuresJoin(p: SqlParams, now: Date, rates: boolean, prs: boolean): string {
  const week = splitWindow(new Date(now.getTime() - 7 * DAY_MS), now);
  const day = splitWindow(new Date(now.getTime() - DAY_MS), now);
  const [weekFirst, weekLast] = week.edges;
  const [dayFirst, dayLast] = day.edges;
  const param = (at: Date) => p.add(at);
  const inside = (edge: Edge, start = param(edge.start), end = param(edge.end)) =>
    `(r.at >= ${start} AND r.at < ${end})`;
  const a = { start: param(weekFirst.start), end: param(weekFirst.end) };
  const recentFrom = rates
    ? Math.min(dayFirst.start.getTime(), dayLast.start.getTime(), weekLast.start.getTime())
    : weekLast.start.getTime();
  const b = { start: param(new Date(recentFrom)), end: param(now) };
  const in7 = `(${inside(weekFirst, a.start, a.end)} OR ${inside(weekLast)})`;
  const in24 = rates ? `(${inside(dayFirst)} OR ${inside(dayLast)})` : 'false';
  const weekDays = { from: p.add(week.fullFrom, 'date'), to: p.add(week.fullTo, 'date') };
  const raw = (span: { start: string; end: string }) =>
    `SELECT ${rates ? 'w.in7::int AS a7, (w.in7 AND w.fail)::int AS f7, w.in24::int AS a24, (w.in24 AND w.fail)::int AS f24' : '0 AS a7, 0 AS f7, 0 AS a24, 0 AS f24'},
       ${prs ? 'CASE WHEN w.in7 AND w.fail THEN (SELECT u.pr_number FROM uploads u WHERE u.pk = w.upload_pk) END' : 'NULL::bigint'} AS pr
     FROM (SELECT r.upload_pk, r.outcome = 'fail' AS fail, ${in7} AS in7, ${in24} AS in24
       FROM test_results r WHERE r.test_pk = t.pk AND r.at >= ${span.start} AND r.at < ${span.end}
         AND r.outcome <> 'skip' AND NOT r.infra) w`;
  const branches = [
    ...(rates ? [rollupsBranch(p, day, weekDays)] : []),
    ...(prs
      ? [
          `SELECT 0 AS a7, 0 AS f7, 0 AS a24, 0 AS f24, p.pr_number AS pr
           FROM test_pr_failures p WHERE p.test_pk = t.pk AND p.day >= ${weekDays.from} AND p.day < ${weekDays.to}`,
        ]
      : []),
    raw(a),
    raw(b),
  ];
  return `CROSS JOIN LATERAL (
  SELECT coalesce(sum(x.a7), 0)::int AS a7, coalesce(sum(x.f7), 0)::int AS f7,
         coalesce(sum(x.a24), 0)::int AS a24, coalesce(sum(x.f24), 0)::int AS f24,
         count(DISTINCT x.pr)::int AS prs
  FROM (
    ${branches.join('\n    UNION ALL ')}
  ) x
) figures`;
}

/** The week's whole days from the rollups; a24/f24 only for the 24 hours' whole days among them. */
function rollupsBranch(
  p: SqlParams,
  day: ReturnType<typeof splitWindow>,
  weekDays: { from: string; to: string },
): string {
  const inDay = `d.day >= ${p.add(day.fullFrom, 'date')} AND d.day < ${p.add(day.fullTo, 'date')}`;
  return `SELECT d.attempts AS a7, d.failures AS f7,
      CASE WHEN ${inDay} THEN d.attempts ELSE 0 END AS a24,
      CASE WHEN ${inDay} THEN d.failures ELSE 0 END AS f24, NULL::bigint AS pr
    FROM test_day_rollups d WHERE d.test_pk = t.pk AND d.day >= ${weekDays.from} AND d.day < ${weekDays.to}`;
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
