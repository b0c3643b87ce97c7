/**
 * The quarantine check for CI: given the tests that failed in a run, which of them are quarantined,
 * and does the run pass — it does when it had failures and every one is quarantined (Trunk's CLI
 * rule). A test the service has never seen is not quarantined: nothing can have flagged it, and
 * failing closed is what Trunk does too.
 */
import { type TestStatus } from '../classification';
import {
  effectiveOverride,
  type QuarantineOverride,
  quarantineOf,
  type QuarantineVerdict,
} from '../quarantine';
import { type Queryable } from './db';
import { type RepositoryRecord } from './repositories';
import { quarantinedSql } from './test-case-json';

export interface QuarantineAnswer {
  readonly testId: string;
  /** False for a test id the repository has no results for. */
  readonly known: boolean;
  readonly status: TestStatus | null;
  readonly verdict: QuarantineVerdict;
}

export interface QuarantineCheck {
  readonly tests: readonly QuarantineAnswer[];
  /** Every failed test is quarantined (and there was at least one). */
  readonly runPasses: boolean;
}

export async function checkQuarantine(
  db: Queryable,
  repository: RepositoryRecord,
  failedTestIds: readonly string[],
  now: Date,
): Promise<QuarantineCheck> {
  const ids = [...new Set(failedTestIds)];
  const { rows } = await db.query<{
    id: string;
    status: TestStatus;
    quarantine_override: QuarantineOverride;
    override_expires_at: Date | null;
    released: boolean;
  }>(
    `SELECT id, status, quarantine_override, override_expires_at, quarantine_released_at IS NOT NULL AS released
     FROM test_cases
     WHERE organisation_id = $1 AND repository_pk = $2 AND id = ANY($3::uuid[])`,
    [repository.organisationId, repository.pk, ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const tests = ids.map((testId): QuarantineAnswer => {
    const row = byId.get(testId);
    if (row === undefined) return { testId, known: false, status: null, verdict: { quarantined: false } };
    return {
      testId,
      known: true,
      status: row.status,
      verdict: quarantineOf(
        repository.quarantine,
        effectiveOverride({ value: row.quarantine_override, expiresAt: row.override_expires_at }, now),
        row.status,
        row.released,
      ),
    };
  });
  return { tests, runPasses: tests.length > 0 && tests.every((t) => t.verdict.quarantined) };
}

/**
 * Every test of the repository quarantined at `now` (Trunk's getQuarantineConfig with no tests named,
 * which the language plugins send): the rule of quarantine.ts, as list-quarantined-tests applies it.
 */
export async function quarantinedTestIds(
  db: Queryable,
  repository: RepositoryRecord,
  now: Date,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT t.id FROM test_cases t
     WHERE t.organisation_id = $1 AND t.repository_pk = $2 AND ${quarantinedSql('$5::timestamptz', '$3::boolean', '$4::boolean')}
     ORDER BY t.id`,
    [
      repository.organisationId,
      repository.pk,
      repository.quarantine.enabled,
      repository.quarantine.autoQuarantine,
      now,
    ],
  );
  return rows.map((r) => r.id);
}
