/**
 * Test cases read from PostgreSQL as objects, in the two shapes their users need:
 *  - the read model (../test-case-record.ts) for up to a page of tests of one repository, in ONE
 *    prepared statement: the test rows with their repository's settings, and per test the detail
 *    joins of test-case-details.ts (7-day and 24-hour attempts and failures, PRs impacted, most
 *    common failures). Used where a record is needed as an object: the html_url page and the
 *    test_case.* webhooks. The list pages and get-test-details write the same figures as JSON in
 *    PostgreSQL instead (test-case-json.ts), from the same joins. One round trip and one connection
 *    per page keeps a busy pool from queueing.
 *  - the classification state that ingestion and re-evaluation lock (FOR UPDATE, in primary-key
 *    order, so two writers never deadlock) before re-classifying (reclassify.ts).
 */
import { type PoolClient } from 'pg';
import { effectiveOverride, quarantineOf } from '../quarantine';
import { type CommonFailure, type TestCaseRecord } from '../test-case-record';
import { type Queryable } from './db';
import { sqlParams } from './sql-params';
import { detailJoins } from './test-case-details';

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
  override_expires_at: Date | null;
  override_owner: string | null;
  clean_runs: number;
  quarantine_released_at: Date | null;
  release_ended_at: Date | null;
  release_after_clean_runs: number;
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

/** The statement of one detail level: the test rows with their repository, and the detail joins. */
function loadStatement(now: Date, detail: 'full' | 'brief', pks: readonly string[]) {
  const p = sqlParams();
  const keys = p.add(pks, 'bigint[]');
  const joins = detailJoins(p, now, {
    rates: detail === 'full',
    prs: true,
    failures: detail === 'full' ? 'records' : 'none',
  });
  const text = `
SELECT t.pk, t.id, t.file, t.classname, t.parent, t.name, t.variant, t.codeowners, t.status, t.status_reason,
  t.status_at, t.quarantine_override, t.override_by, t.override_at, t.override_reason, t.override_expires_at,
  t.override_owner, t.clean_runs, t.quarantine_released_at, t.release_ended_at, t.ticket,
  rp.host, rp.owner, rp.name AS repo_name, rp.quarantine_enabled, rp.auto_quarantine, rp.quarantine_changed_at,
  rp.release_after_clean_runs, rp.ticket_url_template, figures.a7, figures.f7, figures.a24, figures.f24, figures.prs, fails.list AS failures
FROM test_cases t
JOIN repositories rp ON rp.pk = t.repository_pk
${joins}
WHERE t.pk = ANY(${keys})`;
  return { name: `flaky-load-test-cases-${detail}`, text, values: [...p.values] };
}

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
  const { rows } = await db.query<CaseRow>(loadStatement(now, detail, pks));
  const byPk = new Map(rows.map((row) => [row.pk, row]));
  return pks.flatMap((pk) => {
    const row = byPk.get(pk);
    return row === undefined ? [] : [toRecord(row, now)];
  });
}

function toRecord(row: CaseRow, now: Date): TestCaseRecord {
  const settings = { enabled: row.quarantine_enabled, autoQuarantine: row.auto_quarantine };
  const override = effectiveOverride(
    { value: row.quarantine_override, expiresAt: row.override_expires_at },
    now,
  );
  const quarantine = quarantineOf(settings, override, row.status, row.quarantine_released_at !== null);
  const quarantinedAt = !quarantine.quarantined
    ? null
    : quarantine.setting === 'ALWAYS_QUARANTINE'
      ? (row.override_at ?? row.quarantine_changed_at)
      : new Date(
          Math.max(
            row.status_at.getTime(),
            row.quarantine_changed_at.getTime(),
            row.release_ended_at?.getTime() ?? -Infinity,
          ),
        );
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
      expiresAt: row.override_expires_at,
      owner: row.override_owner,
    },
    quarantine,
    release: {
      cleanRuns: row.clean_runs,
      releaseAfterCleanRuns: row.release_after_clean_runs,
      releasedAt: row.quarantine_released_at,
    },
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

/** Failing attempts / attempts, rounded to 4 decimals; 0 without attempts (fractionSql is its twin). */
export function fraction(failures: number, attempts: number): number {
  return attempts === 0 ? 0 : Math.round((failures / attempts) * 10_000) / 10_000;
}

/**
 * The stored state of a test case that ingestion and re-evaluation work with: its current status
 * (with when it began and when it was last evaluated) and the bookkeeping that decides whether it
 * needs re-classifying.
 */
export interface TestCaseState {
  readonly pk: string;
  readonly id: string;
  readonly status: 'healthy' | 'flaky' | 'broken';
  readonly statusReason: string;
  readonly statusAt: Date;
  /** Null until the test's first classification. */
  readonly classifiedAt: Date | null;
  readonly lastFailureAt: Date | null;
  readonly codeowners: readonly string[];
}

interface StateRow {
  pk: string;
  id: string;
  status: TestCaseState['status'];
  status_reason: string;
  status_at: Date;
  classified_at: Date | null;
  last_failure_at: Date | null;
  codeowners: string[];
}

const STATE_COLUMNS = `pk, id, status, status_reason, status_at, classified_at, last_failure_at, codeowners`;

/** Locks the rows by primary key, in order, and answers their current state. */
export async function lockTestCases(
  client: PoolClient,
  pks: readonly string[],
): Promise<Map<string, TestCaseState>> {
  if (pks.length === 0) return new Map();
  const { rows } = await client.query<StateRow>(
    `SELECT ${STATE_COLUMNS} FROM test_cases WHERE pk = ANY($1::bigint[]) ORDER BY pk FOR UPDATE`,
    [pks],
  );
  return new Map(rows.map((row) => [row.pk, toState(row)]));
}

function toState(row: StateRow): TestCaseState {
  return {
    pk: row.pk,
    id: row.id,
    status: row.status,
    statusReason: row.status_reason,
    statusAt: row.status_at,
    classifiedAt: row.classified_at,
    lastFailureAt: row.last_failure_at,
    codeowners: row.codeowners,
  };
}
