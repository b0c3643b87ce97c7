/**
 * The caller's repository inside a read statement: the CTE body that finds it by (organisation,
 * host, owner, name) with the settings the reads need. A statement that reads only through it never
 * reaches another organisation's rows, and tells a missing repository by `scope` having no row —
 * so one statement both resolves the repository and reads from it (keyset.ts, test-case-json.ts).
 */
import type { RepositoryKey } from '../../contract';
import { type SqlParams } from './sql-params';

export interface RepositoryScope {
  readonly organisationId: string;
  readonly key: RepositoryKey;
}

/** `WITH scope AS (${scopeSql(p, scope)})`: pk and the settings read by test-case-json.ts. */
export function scopeSql(p: SqlParams, scope: RepositoryScope): string {
  return `SELECT pk, quarantine_enabled, auto_quarantine, classification, ticket_url_template, quarantine_changed_at,
      release_after_clean_runs
    FROM repositories WHERE organisation_id = ${p.add(scope.organisationId)} AND host = ${p.add(scope.key.host)}
      AND owner = ${p.add(scope.key.owner)} AND name = ${p.add(scope.key.name)}`;
}
