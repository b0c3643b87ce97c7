/**
 * The bulk writes of one upload in ONE statement: data-modifying CTEs over unnest()ed arrays (never
 * one statement per result) append the raw attempts and fold them into the rollups with aggregated
 * upserts, add the PRs a test failed on, and move last_failure_at on the tests that failed. One
 * round trip instead of five: on a busy 2-core machine each round trip costs the API process
 * system calls that showed up in profiles.
 *
 * Every upsert has at most one input row per conflict key (PostgreSQL refuses to touch a row twice
 * in one statement) and feeds its rows in primary-key order, so concurrent uploads of the same
 * tests lock rollup rows in the same order and queue behind each other instead of deadlocking. The
 * test_cases rows updated here were locked earlier in the transaction (ingest.ts).
 */
import { type PoolClient } from '../../stores/db';
import { plainArray } from './pg-arrays';
import { type PreparedTest } from '../ingest/prepare';

export interface UploadRows {
  readonly uploadPk: string;
  readonly repositoryPk: string;
  readonly at: Date;
  readonly day: string;
  readonly infra: boolean;
  readonly prNumber?: number;
  /** The upload's tests with their test-case primary keys, sorted by pk. */
  readonly tests: readonly { readonly pk: string; readonly test: PreparedTest }[];
}

const WRITE_SQL = `
WITH results AS (
  INSERT INTO test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra, duration_ms, fingerprint)
  SELECT $1, r.test_pk, $2, $3, r.attempt, r.outcome, $4, r.duration_ms, r.fingerprint
  FROM unnest($6::bigint[], $7::smallint[], $8::text[], $9::integer[], $10::text[])
    AS r(test_pk, attempt, outcome, duration_ms, fingerprint)
), rollups AS (
  INSERT INTO test_day_rollups AS d (test_pk, day, repository_pk, attempts, failures, infra_attempts,
    infra_failures, last_failure_at)
  SELECT t.test_pk, $5::date, $2, t.a, t.f, t.ia, t.if, CASE WHEN t.f + t.if > 0 THEN $3::timestamptz END
  FROM unnest($11::bigint[], $12::integer[], $13::integer[], $14::integer[], $15::integer[]) AS t(test_pk, a, f, ia, if)
  ORDER BY t.test_pk
  ON CONFLICT (test_pk, day) DO UPDATE SET
    attempts = d.attempts + EXCLUDED.attempts,
    failures = d.failures + EXCLUDED.failures,
    infra_attempts = d.infra_attempts + EXCLUDED.infra_attempts,
    infra_failures = d.infra_failures + EXCLUDED.infra_failures,
    last_failure_at = greatest(d.last_failure_at, EXCLUDED.last_failure_at)
), fingerprints AS (
  INSERT INTO test_failure_fingerprints AS f (test_pk, day, fingerprint, occurrences, summary, sample, last_seen_at)
  SELECT g.test_pk, $5::date, g.fingerprint, g.n, g.summary, g.sample, $3
  FROM unnest($16::bigint[], $17::text[], $18::integer[], $19::text[], $20::text[])
    AS g(test_pk, fingerprint, n, summary, sample)
  ORDER BY g.test_pk, g.fingerprint
  ON CONFLICT (test_pk, day, fingerprint) DO UPDATE SET
    occurrences = f.occurrences + EXCLUDED.occurrences,
    sample = EXCLUDED.sample,
    last_seen_at = greatest(f.last_seen_at, EXCLUDED.last_seen_at)
), prs AS (
  INSERT INTO test_pr_failures (test_pk, day, pr_number)
  SELECT p.test_pk, $5::date, $21::bigint FROM unnest($22::bigint[]) AS p(test_pk)
  ORDER BY p.test_pk
  ON CONFLICT DO NOTHING
), failed AS (
  UPDATE test_cases SET last_failure_at = $3
  WHERE pk = ANY($23::bigint[]) AND (last_failure_at IS NULL OR last_failure_at < $3)
)
SELECT 1`;

export async function writeUploadRows(client: PoolClient, rows: UploadRows): Promise<void> {
  const failed = rows.tests
    .filter(({ test }) => test.attempts.some((a) => a.outcome === 'fail'))
    .map((t) => t.pk);
  await client.query({
    name: 'flaky-ingest-write-rows',
    text: WRITE_SQL,
    values: [
      rows.uploadPk,
      rows.repositoryPk,
      rows.at,
      rows.infra,
      rows.day,
      ...resultArrays(rows),
      ...rollupArrays(rows),
      ...fingerprintArrays(rows),
      // pull_requests_impacted_last_7d counts the PR a test failed on (not in infrastructure failures).
      rows.prNumber ?? null,
      plainArray(rows.prNumber === undefined || rows.infra ? [] : failed),
      plainArray(failed),
    ],
  });
}

function resultArrays(rows: UploadRows): string[] {
  const testPks: string[] = [];
  const attempts: number[] = [];
  const outcomes: string[] = [];
  const durations: (number | null)[] = [];
  const fingerprints: (string | null)[] = [];
  for (const { pk, test } of rows.tests) {
    for (const attempt of test.attempts) {
      testPks.push(pk);
      attempts.push(attempt.index);
      outcomes.push(attempt.outcome);
      durations.push(attempt.durationMs ?? null);
      fingerprints.push(attempt.failure?.fingerprint ?? null);
    }
  }
  return [testPks, attempts, outcomes, durations, fingerprints].map(plainArray);
}

/** One row per test that ran (skips only are left out); infra uploads count in infra_* only. */
function rollupArrays(rows: UploadRows): string[] {
  const pks: string[] = [];
  const attempts: number[] = [];
  const failures: number[] = [];
  for (const { pk, test } of rows.tests) {
    let ran = 0;
    let failed = 0;
    for (const attempt of test.attempts) {
      if (attempt.outcome !== 'skip') ran += 1;
      if (attempt.outcome === 'fail') failed += 1;
    }
    if (ran === 0) continue;
    pks.push(pk);
    attempts.push(ran);
    failures.push(failed);
  }
  const zeros = pks.map(() => 0);
  const counted = rows.infra ? [zeros, zeros, attempts, failures] : [attempts, failures, zeros, zeros];
  return [plainArray(pks), ...counted.map(plainArray)];
}

/** One row per (test, fingerprint); the sample is the latest attempt's line: how it looks now. */
function fingerprintArrays(rows: UploadRows): (string | string[])[] {
  const groups = new Map<
    string,
    { pk: string; fingerprint: string; n: number; summary: string; sample: string }
  >();
  for (const { pk, test } of rows.tests) {
    for (const attempt of test.attempts) {
      if (attempt.failure === undefined) continue;
      const key = `${pk}:${attempt.failure.fingerprint}`;
      groups.set(key, {
        pk,
        fingerprint: attempt.failure.fingerprint,
        n: (groups.get(key)?.n ?? 0) + 1,
        summary: attempt.failure.summary,
        sample: attempt.failure.sample,
      });
    }
  }
  const list = [...groups.values()].sort(
    (a, b) =>
      compareKeys(a.pk, b.pk) || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0),
  );
  return [
    plainArray(list.map((g) => g.pk)),
    plainArray(list.map((g) => g.fingerprint)),
    plainArray(list.map((g) => g.n)),
    list.map((g) => g.summary),
    list.map((g) => g.sample),
  ];
}

/** Orders decimal primary keys numerically (they arrive from pg as strings). */
export function compareKeys(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
