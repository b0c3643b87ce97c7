/**
 * The three paged lists, each a keyset page (keyset.ts) over a set read from rollups or test-case
 * indexes, with its items written as JSON by PostgreSQL (test-case-json.ts), in one statement:
 *  - failing tests: tests with a failing attempt in [from, min(to, asOf)), ordered by their number of
 *    failing attempts in the window (descending) then by key; items are TestCase objects. `asOf` is
 *    pinned in the page token at the first page, so later pages see the same set even while uploads
 *    keep arriving;
 *  - unhealthy tests (flaky or broken), by test id; items are UnhealthyTestCase objects;
 *  - quarantined tests at `now` (overrides expire), by test id, with the SQL twin of quarantineOf()
 *    (quarantinedSql); items are Trunk's QuarantinedTest objects with railyard's additive fields.
 * Each answers null when the organisation has no such repository.
 */
import { type TestStatus } from '../classification';
import { type WireLinks } from '../test-case-wire';
import { type Queryable } from './db';
import { type JsonPage, keysetJsonPage } from './keyset';
import { type RepositoryScope } from './repository-scope';
import { detailJoins } from './test-case-details';
import { quarantinedSql, quarantinedTestJson, testCaseJson } from './test-case-json';
import { splitWindow } from './windows';

/** Failing-tests cursor: the last row's failure count and test key. */
export type FailingKey = readonly [failures: number, testPk: string];
/** Unhealthy and quarantined cursors: the last row's test id. */
export type IdKey = readonly [id: string];

export interface FailingWindow {
  readonly from: Date;
  readonly to: Date;
}

const REPOSITORY_PK = '(SELECT pk FROM scope)';

export function listFailingTests(
  db: Queryable,
  scope: RepositoryScope,
  window: FailingWindow,
  size: number,
  after: FailingKey | null,
  links: WireLinks,
  now: Date,
): Promise<JsonPage<FailingKey> | null> {
  const split = splitWindow(window.from, window.to);
  return keysetJsonPage<FailingKey>(
    db,
    scope,
    (p) => {
      const raw = (edge: (typeof split.edges)[number]) =>
        `SELECT test_pk, 1 FROM test_results WHERE repository_pk = ${REPOSITORY_PK} AND outcome = 'fail'
           AND at >= ${p.add(edge.start)} AND at < ${p.add(edge.end)}`;
      const source = `SELECT test_pk, sum(n)::int AS failures FROM (
          SELECT test_pk, failures + infra_failures AS n FROM test_day_rollups
            WHERE repository_pk = ${REPOSITORY_PK} AND day >= ${p.add(split.fullFrom, 'date')}
              AND day < ${p.add(split.fullTo, 'date')} AND failures + infra_failures > 0
          UNION ALL ${raw(split.edges[0])}
          UNION ALL ${raw(split.edges[1])}
        ) f GROUP BY test_pk`;
      const item = testCaseJson(p, links, 'full', now);
      return {
        source,
        orderBy: 'failures DESC, test_pk',
        atOrBefore: ([failures, pk]) =>
          `(failures > ${failures}::int OR (failures = ${failures}::int AND test_pk <= ${pk}::bigint))`,
        cursorValues: (key) => key,
        keyJson: 'json_build_array(s.failures, s.test_pk::text)',
        parseKey: (json) =>
          Array.isArray(json) && typeof json[0] === 'number' && typeof json[1] === 'string'
            ? [json[0], json[1]]
            : null,
        itemJoins: `JOIN test_cases t ON t.pk = s.test_pk CROSS JOIN scope rp
          ${detailJoins(p, now, { rates: true, prs: true, failures: 'wire' })}`,
        itemJson: item,
      };
    },
    size,
    after,
  );
}

export function listUnhealthyTests(
  db: Queryable,
  scope: RepositoryScope,
  status: Exclude<TestStatus, 'healthy'>,
  size: number,
  after: IdKey | null,
  links: WireLinks,
  now: Date,
): Promise<JsonPage<IdKey> | null> {
  return keysetJsonPage<IdKey>(
    db,
    scope,
    (p) => ({
      source: `SELECT pk, id FROM test_cases
        WHERE repository_pk = ${REPOSITORY_PK} AND status <> 'healthy' AND status = ${p.add(status, 'text')}`,
      ...byId,
      itemJoins: `JOIN test_cases t ON t.pk = s.pk CROSS JOIN scope rp
        ${detailJoins(p, now, { rates: false, prs: true, failures: 'none' })}`,
      itemJson: testCaseJson(p, links, 'brief', now),
    }),
    size,
    after,
  );
}

export function listQuarantinedTests(
  db: Queryable,
  scope: RepositoryScope,
  size: number,
  after: IdKey | null,
  now: Date,
): Promise<JsonPage<IdKey> | null> {
  return keysetJsonPage<IdKey>(
    db,
    scope,
    (p) => ({
      // The switches as scalars, not a join with scope: the repository key then bounds the partial
      // indexes' scans (a join scanned every repository's unhealthy tests).
      source: `SELECT t.pk, t.id FROM test_cases t
        WHERE t.repository_pk = ${REPOSITORY_PK}
          AND ${quarantinedSql(
            p.add(now, 'timestamptz'),
            '(SELECT quarantine_enabled FROM scope)',
            '(SELECT auto_quarantine FROM scope)',
          )}`,
      ...byId,
      itemJoins: `JOIN test_cases t ON t.pk = s.pk CROSS JOIN scope rp`,
      itemJson: quarantinedTestJson(p, now),
    }),
    size,
    after,
  );
}

const byId = {
  orderBy: 'id',
  atOrBefore: ([id]: readonly string[]) => `id <= ${id}::uuid`,
  cursorValues: (key: IdKey) => key,
  keyJson: 'json_build_array(s.id::text)',
  parseKey: (json: unknown): IdKey | null =>
    Array.isArray(json) && typeof json[0] === 'string' ? [json[0]] : null,
};
