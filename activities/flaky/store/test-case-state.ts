/**
 * The stored state of a test case that ingestion and re-evaluation work with: its current status
 * (with when it began and when it was last evaluated) and the bookkeeping that decides whether it
 * needs re-classifying. `classifiedAt` is null until the test's first classification.
 */
import { type PoolClient } from 'pg';

export interface TestCaseState {
  readonly pk: string;
  readonly id: string;
  readonly status: 'healthy' | 'flaky' | 'broken';
  readonly statusReason: string;
  readonly statusAt: Date;
  readonly classifiedAt: Date | null;
  readonly lastFailureAt: Date | null;
  readonly codeowners: readonly string[];
}

export interface StateRow {
  pk: string;
  id: string;
  status: TestCaseState['status'];
  status_reason: string;
  status_at: Date;
  classified_at: Date | null;
  last_failure_at: Date | null;
  codeowners: string[];
}

export const STATE_COLUMNS = `pk, id, status, status_reason, status_at, classified_at, last_failure_at, codeowners`;

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

export function toState(row: StateRow): TestCaseState {
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
