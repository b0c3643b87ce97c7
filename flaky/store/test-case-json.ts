/**
 * SQL twins of the wire builders: the spec's TestCase and Trunk's UnhealthyTestCase
 * (../test-case-wire.ts) and QuarantinedTest (api/routes/flaky-tests/wire.ts), written by PostgreSQL
 * as JSON text, so a list page (lists.ts) and get-test-details (testDetailsJson, below) are passed
 * through by the API without a JavaScript object per row.
 *
 * Invariant: for every row, the text is byte for byte JSON.stringify of what the JavaScript builder
 * makes from the same row's record — same keys in the same order, the same optional keys left out,
 * the same string escaping (to_json), timestamps as toISOString() writes them, rates rounded as
 * fraction() (test-case-reads.ts) rounds them. test/integration/flaky/json-pages.test.ts checks it
 * on awkward rows.
 *
 * Expressions read `t` (test_cases), `rp` (its repositories row) and the joins of
 * test-case-details.ts (`rates`, `prs`, `fails`).
 */
import { createHash } from 'node:crypto';
import { type WireLinks } from '../test-case-wire';
import { type Queryable } from './db';
import { type RepositoryScope, scopeSql } from './repository-scope';
import { type SqlParams, sqlParams } from './sql-params';
import { detailJoins, isoSql, jsonText } from './test-case-details';

/** The override of `t` still applies at `now` (effectiveOverride() of ../quarantine.ts). */
const overrideLive = (now: string) => `(t.override_expires_at IS NULL OR t.override_expires_at > ${now})`;

/**
 * quarantineOf() (../quarantine.ts) over `t`, the repository's switches (by default the columns
 * of `rp`) and `now` (a timestamptz expression: overrides expire by it); a test checks that they agree.
 */
export const quarantinedSql = (now: string, enabled = 'rp.quarantine_enabled', auto = 'rp.auto_quarantine') =>
  `(${enabled} AND ((t.quarantine_override = 'ALWAYS_QUARANTINE' AND ${overrideLive(now)})
  OR (${auto} AND NOT (t.quarantine_override = 'NEVER_QUARANTINE' AND ${overrideLive(now)})
    AND t.status <> 'healthy' AND t.quarantine_released_at IS NULL)))`;

/** A JSON string, or null for SQL NULL. */
const jsonOrNull = (expr: string) => `coalesce(${jsonText(expr)}, 'null')`;

/** encodeURIComponent(): UTF-8 bytes as %XX except the characters it leaves as they are. */
export const uriComponentSql = (expr: string) =>
  `(SELECT coalesce(string_agg(CASE
      WHEN position(u.c IN 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*''()') > 0 THEN u.c
      ELSE upper(regexp_replace(encode(convert_to(u.c, 'UTF8'), 'hex'), '(..)', '%\\1', 'g')) END,
    '' ORDER BY u.i), '') FROM unnest(string_to_array(${expr}, NULL)) WITH ORDINALITY AS u(c, i))`;

/**
 * The TestCase object ('full', list-failing-tests and get-test-details) or the UnhealthyTestCase
 * ('brief': no rates, no most_common_failures) of the row, as JSON text.
 */
export function testCaseJson(p: SqlParams, links: WireLinks, detail: 'full' | 'brief', now: Date): string {
  const at = p.add(now, 'timestamptz');
  const repository = p.add(JSON.stringify(links.repository), 'text');
  const testPrefix = p.add(links.testPrefix, 'text');
  const ticketPrefix = p.add(links.ticketPrefix, 'text');
  const ticket = uriComponentSql('t.ticket');
  const parts = [
    `'{"id":"' || t.id || '","repository":{"html_url":' || ${repository} || '}'`,
    `',"html_url":' || ${jsonText(`${testPrefix} || t.id`)}`,
    `',"name":' || ${jsonText('t.name')} || ',"variant":' || ${jsonText('t.variant')}`,
    `',"status":{"value":"' || t.status || '","reason":' || ${jsonText('t.status_reason')}
      || ',"timestamp":"' || ${isoSql('t.status_at')} || '"}'`,
    `CASE WHEN t.file IS NULL THEN '' ELSE ',"file_path":' || ${jsonText('t.file')} END`,
    `CASE WHEN t.parent = '' THEN '' ELSE ',"parent":' || ${jsonText('t.parent')} END`,
    `CASE WHEN t.classname = '' THEN '' ELSE ',"classname":' || ${jsonText('t.classname')} END`,
    `',"codeowners":' || to_json(t.codeowners)::text`,
    `',"pull_requests_impacted_last_7d":' || figures.prs || ',"quarantined":' || ${quarantinedSql(at)}::text`,
    `CASE WHEN t.ticket IS NULL THEN '' ELSE ',"ticket":{"html_url":'
      || ${jsonText(`coalesce(replace(rp.ticket_url_template, '{ticket}', ${ticket}), ${ticketPrefix} || ${ticket})`)}
      || '}' END`,
    ...(detail === 'full'
      ? [
          `',"most_common_failures":' || fails.list`,
          `',"failure_rate_last_7d":' || ${fractionSql('figures.f7', 'figures.a7')}`,
          `',"failure_rate_last_24h":' || ${fractionSql('figures.f24', 'figures.a24')}`,
        ]
      : []),
    `'}'`,
  ];
  return `(${parts.join('\n  || ')})`;
}

/**
 * Trunk's list-quarantined item of the row; only for rows where quarantinedSql() holds. Trunk's
 * fields first, then railyard's (additive): why, until when, the owner, and the clean runs.
 */
export function quarantinedTestJson(p: SqlParams, now: Date): string {
  const at = p.add(now, 'timestamptz');
  const always = `(t.quarantine_override = 'ALWAYS_QUARANTINE' AND ${overrideLive(at)})`;
  const quarantinedAt = `CASE WHEN ${always} THEN coalesce(t.override_at, rp.quarantine_changed_at)
    ELSE greatest(t.status_at, rp.quarantine_changed_at, t.release_ended_at) END`;
  const parts = [
    `'{"name":' || ${jsonText('t.name')}`,
    `',"parent":' || ${jsonOrNull(`nullif(t.parent, '')`)}`,
    `',"file":' || ${jsonOrNull('t.file')}`,
    `',"classname":' || ${jsonOrNull(`nullif(t.classname, '')`)}`,
    `',"status":"' || upper(t.status) || '","codeowners":' || to_json(t.codeowners)::text`,
    `',"quarantine_setting":"' || CASE WHEN ${always} THEN 'ALWAYS_QUARANTINE' ELSE 'AUTO_QUARANTINE' END`,
    `'","quarantined_at":"' || ${isoSql(quarantinedAt)}`,
    `'","status_last_updated_at":"' || ${isoSql('t.status_at')}`,
    `'","test_case_id":"' || t.id || '","variant":' || ${jsonText('t.variant')}`,
    `',"quarantine_reason":' || ${jsonOrNull(`CASE WHEN ${always} THEN t.override_reason ELSE t.status_reason END`)}`,
    `',"owner":' || ${jsonOrNull('t.override_owner')}`,
    `',"quarantined_until":' || CASE WHEN ${always} AND t.override_expires_at IS NOT NULL
      THEN '"' || ${isoSql('t.override_expires_at')} || '"' ELSE 'null' END`,
    `',"clean_runs":' || t.clean_runs`,
    `',"clean_runs_to_release":' || CASE WHEN ${always} THEN 'null'
      ELSE greatest(0, rp.release_after_clean_runs - t.clean_runs)::text END || '}'`,
  ];
  return `(${parts.join('\n  || ')})`;
}

/**
 * fraction() of test-case-reads.ts: failures / attempts rounded to 4 decimals as Math.round does
 * (half up; floor + comparison is exact for non-negative doubles), 0 without attempts. float8 is
 * IEEE double like a JavaScript number, and its text is the shortest that reads back the same, as
 * JSON.stringify writes numbers (no exponent between 1e-4 and 1).
 */
export function fractionSql(failures: string, attempts: string): string {
  const v = `(${failures}::float8 / nullif(${attempts}, 0) * 10000)`;
  return `coalesce(((floor(${v}) + (${v} - floor(${v}) >= 0.5)::int) / 10000)::text, '0')`;
}

/**
 * get-test-details in ONE statement: finds the repository (repository-scope.ts) and writes the test's
 * TestCase object as JSON, which the API passes through. The test is found by (organisation, id)
 * within that repository, so another repository's or organisation's test does not exist here.
 * Answers null without the repository, `test: null` without the test.
 */
export async function testDetailsJson(
  db: Queryable,
  scope: RepositoryScope,
  id: string,
  links: WireLinks,
  now: Date,
): Promise<{ readonly test: string | null } | null> {
  const p = sqlParams();
  const repository = scopeSql(p, scope);
  const item = testCaseJson(p, links, 'full', now);
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
