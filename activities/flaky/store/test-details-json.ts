/**
 * get-test-details in ONE statement: finds the repository (repository-scope.ts) and writes the test's
 * TestCase object as JSON (test-case-json.ts), which the API passes through. The test is found by
 * (organisation, id) within that repository, so another repository's or organisation's test does not
 * exist here. Answers null without the repository, `test: null` without the test.
 */
import { createHash } from 'node:crypto';
import { type WireLinks } from '../test-case-wire';
import { type Queryable } from './db';
import { type RepositoryScope, scopeSql } from './repository-scope';
import { sqlParams } from './sql-params';
import { detailJoins } from './test-case-details';
import { testCaseJson } from './test-case-json';

export async function testDetailsJson(
  db: Queryable,
  scope: RepositoryScope,
  id: string,
  links: WireLinks,
  now: Date,
): Promise<{ readonly test: string | null } | null> {
  const p = sqlParams();
  const repository = scopeSql(p, scope);
  const item = testCaseJson(p, links, 'full');
  const joins = detailJoins(p, now, { rates: true, prs: true, failures: 'wire' });
  const text = `WITH scope AS (${repository})
    SELECT (SELECT pk FROM scope) AS repository_pk,
      (SELECT ${item} FROM scope rp
         JOIN test_cases t ON t.organisation_id = ${p.add(scope.organisationId)} AND t.id = ${p.add(id)}::uuid
           AND t.repository_pk = rp.pk
         ${joins}) AS test`;
  // Named after its text (fixed but for the links' values): planned once per connection.
  const name = `flaky-details-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  const { rows } = await db.query<{ repository_pk: string | null; test: string | null }>({
    name,
    text,
    values: [...p.values],
  });
  const row = rows[0];
  return row?.repository_pk == null ? null : { test: row.test };
}
