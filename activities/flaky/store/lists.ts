/**
 * The three paged lists, each a keyset page (keyset.ts) over a set read from rollups or test-case
 * indexes, then filled in with loadTestCases:
 *  - failing tests: tests with a failing attempt in [from, min(to, asOf)), ordered by their number of
 *    failing attempts in the window (descending) then by key. `asOf` is pinned in the page token at
 *    the first page, so later pages see the same set even while uploads keep arriving;
 *  - unhealthy tests (flaky or broken), by test id;
 *  - quarantined tests, by test id, with the SQL twin of quarantineOf() (quarantine.ts).
 */
import { type TestStatus } from '../classification';
import { type Queryable } from './db';
import { type KeysetPage, keysetPage } from './keyset';
import { type TestCaseRecord } from './test-case-record';
import { loadTestCases } from './test-cases-read';
import { splitWindow } from './windows';

/** Failing-tests cursor: the last row's failure count and test key. */
export type FailingKey = readonly [failures: number, testPk: string];
/** Unhealthy and quarantined cursors: the last row's test id. */
export type IdKey = readonly [id: string];

export interface FailingWindow {
  readonly from: Date;
  readonly to: Date;
}

export async function listFailingTests(
  db: Queryable,
  repositoryPk: string,
  window: FailingWindow,
  size: number,
  after: FailingKey | null,
  now: Date,
): Promise<KeysetPage<FailingKey, TestCaseRecord>> {
  const split = splitWindow(window.from, window.to);
  const raw = (start: string, end: string) =>
    `SELECT test_pk, 1 FROM test_results WHERE repository_pk = $1 AND outcome = 'fail' AND at >= ${start} AND at < ${end}`;
  const page = await keysetPage<FailingKey, { test_pk: string; failures: number }>(
    db,
    {
      source: `SELECT test_pk, sum(n)::int AS failures FROM (
          SELECT test_pk, failures + infra_failures AS n FROM test_day_rollups
            WHERE repository_pk = $1 AND day >= $2::date AND day < $3::date AND failures + infra_failures > 0
          UNION ALL ${raw('$4', '$5')}
          UNION ALL ${raw('$6', '$7')}
        ) f GROUP BY test_pk`,
      values: [
        repositoryPk,
        split.fullFrom,
        split.fullTo,
        split.edges[0].start,
        split.edges[0].end,
        split.edges[1].start,
        split.edges[1].end,
      ],
      orderBy: 'failures DESC, test_pk',
      atOrBefore: '(failures > $c1::int OR (failures = $c1::int AND test_pk <= $c2::bigint))',
      keyOf: (row) => [row.failures, row.test_pk],
      cursorValues: (key) => key,
    },
    size,
    after,
  );
  return withRecords(db, page, (row) => row.test_pk, now, 'full');
}

export async function listUnhealthyTests(
  db: Queryable,
  repositoryPk: string,
  status: Exclude<TestStatus, 'healthy'>,
  size: number,
  after: IdKey | null,
  now: Date,
): Promise<KeysetPage<IdKey, TestCaseRecord>> {
  const page = await keysetPage<IdKey, { pk: string; id: string }>(
    db,
    {
      source: `SELECT pk, id FROM test_cases WHERE repository_pk = $1 AND status <> 'healthy' AND status = $2`,
      values: [repositoryPk, status],
      orderBy: 'id',
      atOrBefore: 'id <= $c1::uuid',
      keyOf: (row) => [row.id],
      cursorValues: (key) => key,
    },
    size,
    after,
  );
  return withRecords(db, page, (row) => row.pk, now, 'brief');
}

/** The SQL twin of quarantineOf(); a test checks that they agree. */
export const QUARANTINED_SQL = `$2::boolean AND (t.quarantine_override = 'ALWAYS_QUARANTINE' OR ($3::boolean
  AND t.quarantine_override <> 'NEVER_QUARANTINE' AND t.status <> 'healthy'))`;

export async function listQuarantinedTests(
  db: Queryable,
  repository: { readonly pk: string; readonly quarantine: { enabled: boolean; autoQuarantine: boolean } },
  size: number,
  after: IdKey | null,
  now: Date,
): Promise<KeysetPage<IdKey, TestCaseRecord>> {
  const page = await keysetPage<IdKey, { pk: string; id: string }>(
    db,
    {
      source: `SELECT t.pk, t.id FROM test_cases t WHERE t.repository_pk = $1 AND ${QUARANTINED_SQL}`,
      values: [repository.pk, repository.quarantine.enabled, repository.quarantine.autoQuarantine],
      orderBy: 'id',
      atOrBefore: 'id <= $c1::uuid',
      keyOf: (row) => [row.id],
      cursorValues: (key) => key,
    },
    size,
    after,
  );
  return withRecords(db, page, (row) => row.pk, now, 'brief');
}

async function withRecords<K, R extends object>(
  db: Queryable,
  page: KeysetPage<K, R>,
  pkOf: (row: R) => string,
  now: Date,
  detail: 'full' | 'brief',
): Promise<KeysetPage<K, TestCaseRecord>> {
  const records = await loadTestCases(db, page.rows.map(pkOf), now, detail);
  return { ...page, rows: records };
}
