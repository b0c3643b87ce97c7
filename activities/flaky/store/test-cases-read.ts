/**
 * Builds TestCaseRecords for up to a page of tests of one repository in ONE prepared statement: the
 * test rows with their repository's settings, and per test (LATERAL, each bounded by the test's key
 * and by time) —
 *  - attempts and failures over the last 7 days and 24 hours: whole days from test_day_rollups, the
 *    partial days at the window edges from the covering index on raw attempts (windows.ts);
 *  - distinct PRs with a failure over 7 days: test_pr_failures, edges from raw attempts;
 *  - the most common failure fingerprints over the last W_FAIL UTC days (test_failure_fingerprints).
 * One round trip and one connection per page keeps a busy pool from queueing.
 */
import { DEFAULT_CLASSIFICATION_PARAMS } from '../classification';
import { quarantineOf } from '../quarantine';
import { type Queryable } from './db';
import { type CommonFailure, type TestCaseRecord } from './test-case-record';
import { dayOf, splitWindow } from './windows';

interface CaseRow {
  pk: string;
  id: string;
  file: string | null;
  classname: string;
  parent: string;
  name: string;
  variant: string;
  codeowners: string[];
  status: TestCaseRecord['status']['value'];
  status_reason: string;
  status_at: Date;
  quarantine_override: TestCaseRecord['override']['value'];
  override_by: string | null;
  override_at: Date | null;
  override_reason: string | null;
  ticket: string | null;
  host: string;
  owner: string;
  repo_name: string;
  quarantine_enabled: boolean;
  auto_quarantine: boolean;
  quarantine_changed_at: Date;
  ticket_url_template: string | null;
  a7: number;
  f7: number;
  a24: number;
  f24: number;
  prs: number;
  failures: { summary: string; occurrences: number; last: string }[];
}

const DAY_MS = 86_400_000;
const { topFailures, failureWindowDays } = DEFAULT_CLASSIFICATION_PARAMS;

const rawRates = (start: string, end: string, week: boolean) =>
  `SELECT ${week ? "1, (r.outcome = 'fail')::int, 0, 0" : "0, 0, 1, (r.outcome = 'fail')::int"}
   FROM test_results r WHERE r.test_pk = t.pk AND r.at >= ${start} AND r.at < ${end}
     AND r.outcome <> 'skip' AND NOT r.infra AND $14`;
const rawPrs = (start: string, end: string) =>
  `SELECT u.pr_number FROM test_results r JOIN uploads u ON u.pk = r.upload_pk
   WHERE r.test_pk = t.pk AND r.at >= ${start} AND r.at < ${end} AND r.outcome = 'fail' AND NOT r.infra
     AND u.pr_number IS NOT NULL`;

const LOAD_SQL = `
SELECT t.pk, t.id, t.file, t.classname, t.parent, t.name, t.variant, t.codeowners, t.status, t.status_reason,
  t.status_at, t.quarantine_override, t.override_by, t.override_at, t.override_reason, t.ticket,
  rp.host, rp.owner, rp.name AS repo_name, rp.quarantine_enabled, rp.auto_quarantine, rp.quarantine_changed_at,
  rp.ticket_url_template, rates.a7, rates.f7, rates.a24, rates.f24, prs.n AS prs, fails.list AS failures
FROM test_cases t
JOIN repositories rp ON rp.pk = t.repository_pk
CROSS JOIN LATERAL (
  SELECT coalesce(sum(a7), 0)::int AS a7, coalesce(sum(f7), 0)::int AS f7,
         coalesce(sum(a24), 0)::int AS a24, coalesce(sum(f24), 0)::int AS f24
  FROM (
    SELECT d.attempts AS a7, d.failures AS f7, 0 AS a24, 0 AS f24 FROM test_day_rollups d
      WHERE d.test_pk = t.pk AND d.day >= $2::date AND d.day < $3::date AND $14
    UNION ALL
    SELECT 0, 0, d.attempts, d.failures FROM test_day_rollups d
      WHERE d.test_pk = t.pk AND d.day >= $4::date AND d.day < $5::date AND $14
    UNION ALL ${rawRates('$6', '$7', true)}
    UNION ALL ${rawRates('$8', '$9', true)}
    UNION ALL ${rawRates('$10', '$11', false)}
    UNION ALL ${rawRates('$12', '$13', false)}
  ) x
) rates
CROSS JOIN LATERAL (
  SELECT count(DISTINCT pr)::int AS n FROM (
    SELECT p.pr_number AS pr FROM test_pr_failures p WHERE p.test_pk = t.pk AND p.day >= $2::date AND p.day < $3::date
    UNION ALL ${rawPrs('$6', '$7')}
    UNION ALL ${rawPrs('$8', '$9')}
  ) x
) prs
CROSS JOIN LATERAL (
  SELECT coalesce(json_agg(json_build_object('summary', g.summary, 'occurrences', g.n, 'last', g.last)
    ORDER BY g.n DESC, g.last DESC, g.summary), '[]') AS list
  FROM (
    SELECT min(f.summary) AS summary, sum(f.occurrences)::int AS n, max(f.last_seen_at) AS last
    FROM test_failure_fingerprints f
    WHERE f.test_pk = t.pk AND $14
      AND f.day >= $15::date - (coalesce((rp.classification->>'failureWindowDays')::float8, $16)::int - 1)
    GROUP BY f.fingerprint
    ORDER BY n DESC, last DESC, summary
    LIMIT coalesce((rp.classification->>'topFailures')::int, $17)
  ) g
) fails
WHERE t.pk = ANY($1::bigint[])`;

/**
 * Records in the order of `pks` (tests of one repository); unknown keys are left out. `brief` skips
 * the failure rates and most common failures (Trunk's unhealthy and quarantined lists omit them).
 */
export async function loadTestCases(
  db: Queryable,
  pks: readonly string[],
  now: Date,
  detail: 'full' | 'brief' = 'full',
): Promise<TestCaseRecord[]> {
  if (pks.length === 0) return [];
  const week = splitWindow(new Date(now.getTime() - 7 * DAY_MS), now);
  const day = splitWindow(new Date(now.getTime() - DAY_MS), now);
  const { rows } = await db.query<CaseRow>({
    name: 'flaky-load-test-cases',
    text: LOAD_SQL,
    values: [
      pks,
      week.fullFrom,
      week.fullTo,
      day.fullFrom,
      day.fullTo,
      week.edges[0].start,
      week.edges[0].end,
      week.edges[1].start,
      week.edges[1].end,
      day.edges[0].start,
      day.edges[0].end,
      day.edges[1].start,
      day.edges[1].end,
      detail === 'full',
      dayOf(now),
      failureWindowDays,
      topFailures,
    ],
  });
  const byPk = new Map(rows.map((row) => [row.pk, row]));
  return pks.flatMap((pk) => {
    const row = byPk.get(pk);
    return row === undefined ? [] : [toRecord(row)];
  });
}

function toRecord(row: CaseRow): TestCaseRecord {
  const settings = { enabled: row.quarantine_enabled, autoQuarantine: row.auto_quarantine };
  const quarantine = quarantineOf(settings, row.quarantine_override, row.status);
  const quarantinedAt = !quarantine.quarantined
    ? null
    : quarantine.setting === 'ALWAYS_QUARANTINE'
      ? (row.override_at ?? row.quarantine_changed_at)
      : new Date(Math.max(row.status_at.getTime(), row.quarantine_changed_at.getTime()));
  const mostCommonFailures: CommonFailure[] = row.failures.map((f) => ({
    summary: f.summary,
    occurrences: f.occurrences,
    lastOccurrence: new Date(f.last),
  }));
  return {
    pk: row.pk,
    id: row.id,
    repository: { host: row.host, owner: row.owner, name: row.repo_name },
    file: row.file,
    classname: row.classname,
    parent: row.parent,
    name: row.name,
    variant: row.variant,
    codeowners: row.codeowners,
    status: { value: row.status, reason: row.status_reason, timestamp: row.status_at },
    override: {
      value: row.quarantine_override,
      by: row.override_by,
      at: row.override_at,
      reason: row.override_reason,
    },
    quarantine,
    quarantinedAt,
    ticket:
      row.ticket === null
        ? null
        : {
            key: row.ticket,
            url: row.ticket_url_template?.split('{ticket}').join(encodeURIComponent(row.ticket)) ?? null,
          },
    failureRate7d: fraction(row.f7, row.a7),
    failureRate24h: fraction(row.f24, row.a24),
    pullRequestsImpacted7d: row.prs,
    mostCommonFailures,
  };
}

function fraction(failures: number, attempts: number): number {
  return attempts === 0 ? 0 : Math.round((failures / attempts) * 10_000) / 10_000;
}
