/**
 * Every test of one repository as the dashboard lists them (issue 29: a test that is neither flaky,
 * broken nor quarantined could only be found through the API): searchable by name, classname or file,
 * filterable by status, sorted by failure rate or by name, a page at a time.
 *
 * The failure rate here is over whole UTC days, the last RATE_DAYS of them (today included), from the
 * day rollups of non-infrastructure attempts: the list sorts thousands of tests by it, and the rollups
 * answer that with the failing-days index plus one primary-key probe per failing test (a test without a
 * failure in those days has rate 0 and needs no probe to be sorted). A test's own page shows the exact
 * sliding 24 h and 7 d rates.
 *
 * Invariants: one repository (by its row, found for the organisation first); a page is at most
 * MAX_PAGE_SIZE tests and at most MAX_PAGE deep (offset paging, with the total for the pager); the
 * search is a literal substring (`%`, `_` and `\` in it match themselves), at most MAX_SEARCH_CHARS.
 */
import { type TestStatus } from '../classification';
import { type Queryable } from './db';

export const RATE_DAYS = 7;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE = 1_000;
export const MAX_SEARCH_CHARS = 200;

export type TestListSort = 'failure_rate' | 'name';

export interface TestListQuery {
  /** A substring of the name, classname or file; empty or absent: every test. */
  readonly search?: string;
  readonly status?: TestStatus;
  readonly sort: TestListSort;
  /** 1-based. */
  readonly page: number;
  readonly pageSize: number;
}

export interface ListedTest {
  readonly id: string;
  readonly name: string;
  readonly classname: string;
  readonly file: string | null;
  readonly status: TestStatus;
  /** Attempts and failures of the last RATE_DAYS UTC days (non-infrastructure). */
  readonly runs: number;
  readonly failures: number;
  /** failures / runs; null when it did not run in those days. */
  readonly failureRate: number | null;
}

export interface TestListPage {
  readonly tests: readonly ListedTest[];
  /** How many tests match the search and filter (every page). */
  readonly total: number;
}

/** Checks the bounds; a query past them is the caller's mistake, named. */
export function checkTestListQuery(query: TestListQuery): void {
  if (!(Number.isInteger(query.page) && query.page >= 1 && query.page <= MAX_PAGE))
    throw new RangeError(`page must be a whole number from 1 to ${MAX_PAGE}`);
  if (!(Number.isInteger(query.pageSize) && query.pageSize >= 1 && query.pageSize <= MAX_PAGE_SIZE))
    throw new RangeError(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  if ((query.search ?? '').length > MAX_SEARCH_CHARS)
    throw new RangeError(`search must be at most ${MAX_SEARCH_CHARS} characters`);
}

/** `%term%` for ILIKE … ESCAPE '\', the term's own wildcards escaped. */
export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface Row {
  id: string;
  name: string;
  classname: string;
  file: string | null;
  status: TestStatus;
  runs: number;
  failures: number;
  rate: number | null;
  total: string;
}

export async function listRepositoryTests(
  db: Queryable,
  repositoryPk: string,
  query: TestListQuery,
  now: Date,
): Promise<TestListPage> {
  checkTestListQuery(query);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const fromDay = new Date(today - (RATE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const filter = filterOf(repositoryPk, query, 4);
  const values = [fromDay, query.pageSize, (query.page - 1) * query.pageSize, ...filter.values];
  const where = filter.sql;
  // By rate, highest first (a test without a failure in those days, run or not, counts as 0), then by
  // name; the pk makes the order total, so pages neither repeat nor skip a test.
  const order = query.sort === 'failure_rate' ? 'sort_rate DESC, name, pk' : 'name, classname, pk';
  const { rows } = await db.query<Row>(
    `WITH failing AS (
       SELECT test_pk, sum(failures)::int AS failures FROM test_day_rollups
        WHERE repository_pk = $4 AND day >= $1::date AND failures + infra_failures > 0
        GROUP BY test_pk
     ), rated AS (
       SELECT f.test_pk, f.failures, a.runs FROM failing f
       CROSS JOIN LATERAL (SELECT sum(r.attempts)::int AS runs FROM test_day_rollups r
                            WHERE r.test_pk = f.test_pk AND r.day >= $1::date) a
     ), page AS (
       SELECT t.pk, t.id::text AS id, t.name, t.classname, t.file, t.status,
              coalesce(rated.failures::float8 / nullif(rated.runs, 0), 0) AS sort_rate,
              count(*) OVER () AS total
         FROM test_cases t LEFT JOIN rated ON rated.test_pk = t.pk
        WHERE ${where}
        ORDER BY ${order}
        LIMIT $2 OFFSET $3
     )
     SELECT p.id, p.name, p.classname, p.file, p.status, p.total, p.sort_rate, p.pk,
            coalesce(w.runs, 0)::int AS runs, coalesce(w.failures, 0)::int AS failures,
            CASE WHEN w.runs > 0 THEN w.failures::float8 / w.runs END AS rate
       FROM page p
       CROSS JOIN LATERAL (SELECT sum(r.attempts)::int AS runs, sum(r.failures)::int AS failures
                             FROM test_day_rollups r WHERE r.test_pk = p.pk AND r.day >= $1::date) w
      ORDER BY ${order}`,
    values,
  );
  return {
    total: rows.length > 0 ? Number(rows[0]!.total) : await countOnly(db, repositoryPk, query),
    tests: rows.map((r) => ({
      id: r.id,
      name: r.name,
      classname: r.classname,
      file: r.file,
      status: r.status,
      runs: r.runs,
      failures: r.failures,
      failureRate: r.rate,
    })),
  };
}

/** The repository and the query's filters as SQL over `test_cases t`, its parameters from `$first`. */
function filterOf(repositoryPk: string, query: TestListQuery, first: number) {
  const values: unknown[] = [repositoryPk];
  const where = [`t.repository_pk = $${first}`];
  if (query.status !== undefined) {
    values.push(query.status);
    where.push(`t.status = $${first + values.length - 1}`);
  }
  const search = (query.search ?? '').trim();
  if (search !== '') {
    values.push(likePattern(search));
    const p = `$${first + values.length - 1}`;
    where.push(
      `(t.name ILIKE ${p} ESCAPE '\\' OR t.classname ILIKE ${p} ESCAPE '\\' OR t.file ILIKE ${p} ESCAPE '\\')`,
    );
  }
  return { sql: where.join(' AND '), values };
}

/** The total when the page is past the end (no row carried it). */
async function countOnly(db: Queryable, repositoryPk: string, query: TestListQuery): Promise<number> {
  const filter = filterOf(repositoryPk, query, 1);
  const { rows } = await db.query<{ total: string }>(
    `SELECT count(*) AS total FROM test_cases t WHERE ${filter.sql}`,
    filter.values,
  );
  return Number(rows[0]?.total ?? 0);
}
