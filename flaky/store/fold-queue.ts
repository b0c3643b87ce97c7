/**
 * The fold queue and the fold's SQL (table flaky_fold_pending, migration 0025; the fold itself is
 * flaky/fold/fold.ts). The acknowledgement of an upload adds one queue row in its own transaction,
 * next to the raw rows: "acknowledged, not yet folded", carrying per test its runs and failures
 * (migration 0034: what the fold needs of the raw rows, so it never reads them back; batch-runs.ts)
 * and what the raw rows lack — per (test, fingerprint) the number of failing attempts, the
 * normalised summary and the latest attempt's sample line (most_common_failures). The fold takes a
 * repository's oldest rows as a batch, folds them and deletes them, all in one transaction.
 *
 * Invariant: a queue row exists exactly while its upload's raw rows are stored and not folded; only
 * finishFold deletes it, in the transaction that folds the upload.
 */
import { type PoolClient } from 'pg';
import { type ClassificationParams } from '../classification';
import { type PreparedTest } from '../ingest/prepare';
import { type Queryable } from './db';
import { batchRunsSql } from './batch-runs';
import { plainArray } from './pg-arrays';
import { settledLookbackMs } from './reclassify';

/** `[test_pk, fingerprint, occurrences, summary, sample]`, as the fold reads it back. */
export type PendingFailure = readonly [string, string, number, string, string];

export const DEFAULT_FOLD_MAX_RESULTS = 50_000;

/** The repository's advisory lock key ($1 the repository pk): 64-bit, so repositories never share one. */
const FOLD_LOCK_KEY = `hashtextextended('railyard-flaky-fold/' || $1::text, 0)`;

/**
 * Per test of an upload, in the order of `testPks`: its non-skipped attempts (`runs`) and failing
 * attempts (`fails`), what the fold reads instead of the raw rows (batch-runs.ts). Every test of the
 * upload, also one with only skipped attempts.
 */
export interface PendingRuns {
  readonly testPks: readonly string[];
  readonly runs: readonly number[];
  readonly fails: readonly number[];
}

export async function enqueueFold(
  client: PoolClient,
  uploadPk: string,
  repositoryPk: string,
  failures: readonly PendingFailure[],
  runs: PendingRuns,
): Promise<void> {
  await client.query({
    name: 'flaky-fold-enqueue',
    text: `INSERT INTO flaky_fold_pending (upload_pk, repository_pk, failures, test_pks, runs, fails)
           VALUES ($1, $2, $3, $4::bigint[], $5::integer[], $6::integer[])`,
    values: [
      uploadPk,
      repositoryPk,
      JSON.stringify(failures),
      plainArray(runs.testPks),
      plainArray(runs.runs),
      plainArray(runs.fails),
    ],
  });
}

/** One entry per (test, fingerprint); the sample is the latest attempt's line: how it looks now. */
export function pendingFailures(
  tests: readonly { readonly pk: string; readonly test: PreparedTest }[],
): PendingFailure[] {
  const failed: FailedAttempt[] = [];
  for (const { pk, test } of tests)
    for (const attempt of test.attempts) {
      const failure = attempt.failure;
      if (failure !== undefined) failed.push([pk, failure.fingerprint, failure.summary, failure.sample]);
    }
  return groupFailures(failed);
}

/** A failed attempt: its test's pk, then its fingerprint, summary and sample. */
export type FailedAttempt = readonly [pk: string, fingerprint: string, summary: string, sample: string];

/** pendingFailures of the failed attempts in attempt order (tests in order, attempts in order). */
export function groupFailures(failed: Iterable<FailedAttempt>): PendingFailure[] {
  const groups = new Map<string, [string, string, number, string, string]>();
  for (const [pk, fingerprint, summary, sample] of failed) {
    const key = `${pk}:${fingerprint}`;
    const seen = groups.get(key);
    if (seen === undefined) groups.set(key, [pk, fingerprint, 1, summary, sample]);
    else {
      seen[2] += 1;
      seen[4] = sample;
    }
  }
  return [...groups.values()];
}

/**
 * The repository's fold lock for this transaction: one folder per repository at a time, whichever
 * process. `skipLocked` tries once and answers false when another fold holds it; otherwise waits.
 */
export async function lockRepositoryFold(
  client: PoolClient,
  repositoryPk: string,
  skipLocked: boolean,
): Promise<boolean> {
  if (!skipLocked) {
    await client.query(`SELECT pg_advisory_xact_lock(${FOLD_LOCK_KEY})`, [repositoryPk]);
    return true;
  }
  const { rows } = await client.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock(${FOLD_LOCK_KEY}) AS locked`,
    [repositoryPk],
  );
  return rows[0]?.locked === true;
}

/**
 * A batch: its uploads and the span of their times. An upload's attempts all have its time
 * (`uploads.received_at` is their `at`), so [firstAt, lastAt] bounds every row of the batch.
 */
export interface FoldBatchRows {
  readonly uploadPks: readonly string[];
  readonly firstAt: Date;
  readonly lastAt: Date;
}

/** The repository's oldest pending uploads, up to `maxResults` attempts (at least one upload). */
export async function takeFoldBatch(
  client: PoolClient,
  repositoryPk: string,
  options: { readonly through?: string; readonly maxResults?: number },
): Promise<FoldBatchRows> {
  const { rows } = await client.query<{ upload_pk: string; received_at: Date }>({
    name: 'flaky-fold-batch',
    text: `SELECT upload_pk, received_at FROM (
             SELECT p.upload_pk, u.received_at, u.results + u.skipped AS own,
                    sum(u.results + u.skipped) OVER (ORDER BY p.upload_pk) AS running
               FROM flaky_fold_pending p JOIN uploads u ON u.pk = p.upload_pk
              WHERE p.repository_pk = $1 AND ($2::bigint IS NULL OR p.upload_pk <= $2)
              ORDER BY p.upload_pk LIMIT 1000
           ) s
           WHERE running - own < $3 ORDER BY upload_pk`,
    values: [repositoryPk, options.through ?? null, options.maxResults ?? DEFAULT_FOLD_MAX_RESULTS],
  });
  const times = rows.map((r) => r.received_at.getTime());
  return {
    uploadPks: rows.map((r) => r.upload_pk),
    firstAt: new Date(times.length === 0 ? 0 : Math.min(...times)),
    lastAt: new Date(times.length === 0 ? 0 : Math.max(...times)),
  };
}

/**
 * The batch's tests that may change status, with whether they failed in the batch: those that failed
 * and those whose stored state is unsettled (the SQL twin of needsReclassification's stored part).
 */
export async function foldCandidates(
  client: PoolClient,
  batch: FoldBatchRows,
  params: ClassificationParams,
): Promise<Map<string, boolean>> {
  const { rows } = await client.query<{ pk: string; failed: boolean }>({
    name: 'flaky-fold-candidates',
    text: `SELECT t.pk, c.failed
             FROM (SELECT b.test_pk, bool_or(b.fails > 0) AS failed FROM ${batchRunsSql('$1::bigint[]')}
                    GROUP BY b.test_pk) c
             JOIN test_cases t ON t.pk = c.test_pk
            WHERE c.failed OR t.status <> 'healthy' OR t.classified_at IS NULL
               OR t.status_reason NOT IN ('no_signal', 'recovered') OR t.last_failure_at >= $2`,
    values: [plainArray(batch.uploadPks), new Date(batch.lastAt.getTime() - settledLookbackMs(params))],
  });
  return new Map(rows.map((r) => [r.pk, r.failed]));
}

/**
 * The aggregated upserts of the batch's runs (its queue rows), in ONE statement: every upsert has one input row
 * per conflict key (PostgreSQL refuses to touch a row twice in one statement) and feeds them in key
 * order, so concurrent writers of the same rows queue instead of deadlocking. Answers the attempts.
 */
export async function foldRows(
  client: PoolClient,
  repositoryPk: string,
  batch: FoldBatchRows,
): Promise<number> {
  const { rows } = await client.query<{ results: number }>({
    name: 'flaky-fold-rows',
    text: `WITH r AS (
  SELECT b.test_pk, b.upload_pk, b.runs, b.fails, b.at, b.day, b.infra, b.pr_number FROM ${batchRunsSql('$1::bigint[]')}
), rollups AS (
  INSERT INTO test_day_rollups AS d (test_pk, day, repository_pk, attempts, failures, infra_attempts,
    infra_failures, last_failure_at)
  SELECT r.test_pk, r.day, $2,
    coalesce(sum(r.runs) FILTER (WHERE NOT r.infra), 0),
    coalesce(sum(r.fails) FILTER (WHERE NOT r.infra), 0),
    coalesce(sum(r.runs) FILTER (WHERE r.infra), 0),
    coalesce(sum(r.fails) FILTER (WHERE r.infra), 0),
    max(r.at) FILTER (WHERE r.fails > 0)
  FROM r GROUP BY r.test_pk, r.day
  HAVING sum(r.runs) > 0
  ORDER BY r.test_pk, r.day
  ON CONFLICT (test_pk, day) DO UPDATE SET
    attempts = d.attempts + EXCLUDED.attempts,
    failures = d.failures + EXCLUDED.failures,
    infra_attempts = d.infra_attempts + EXCLUDED.infra_attempts,
    infra_failures = d.infra_failures + EXCLUDED.infra_failures,
    last_failure_at = greatest(d.last_failure_at, EXCLUDED.last_failure_at)
), failures AS (
  SELECT (e ->> 0)::bigint AS test_pk, (u.received_at AT TIME ZONE 'UTC')::date AS day, e ->> 1 AS fingerprint,
    (e ->> 2)::integer AS n, e ->> 3 AS summary, e ->> 4 AS sample, u.received_at, p.upload_pk
  FROM flaky_fold_pending p JOIN uploads u ON u.pk = p.upload_pk
  CROSS JOIN LATERAL jsonb_array_elements(p.failures) e
  WHERE p.upload_pk = ANY($1::bigint[])
), fingerprints AS (
  INSERT INTO test_failure_fingerprints AS f (test_pk, day, fingerprint, occurrences, summary, sample, last_seen_at)
  SELECT g.test_pk, g.day, g.fingerprint, sum(g.n), (array_agg(g.summary ORDER BY g.upload_pk))[1],
    (array_agg(g.sample ORDER BY g.upload_pk DESC))[1], max(g.received_at)
  FROM failures g GROUP BY g.test_pk, g.day, g.fingerprint
  ORDER BY g.test_pk, g.day, g.fingerprint
  ON CONFLICT (test_pk, day, fingerprint) DO UPDATE SET
    occurrences = f.occurrences + EXCLUDED.occurrences,
    sample = EXCLUDED.sample,
    last_seen_at = greatest(f.last_seen_at, EXCLUDED.last_seen_at)
), prs AS (
  -- pull_requests_impacted_last_7d counts the PR a test failed on (not in infrastructure failures).
  INSERT INTO test_pr_failures (test_pk, day, pr_number)
  SELECT DISTINCT r.test_pk, r.day, r.pr_number
  FROM r
  WHERE r.fails > 0 AND NOT r.infra AND r.pr_number IS NOT NULL
  ORDER BY r.test_pk, r.day, r.pr_number
  ON CONFLICT DO NOTHING
), failed AS (
  UPDATE test_cases t SET last_failure_at = l.at
  FROM (SELECT r.test_pk, max(r.at) AS at FROM r WHERE r.fails > 0 GROUP BY r.test_pk) l
  WHERE t.pk = l.test_pk AND (t.last_failure_at IS NULL OR t.last_failure_at < l.at)
)
SELECT coalesce(sum(u.results + u.skipped), 0)::integer AS results FROM uploads u WHERE u.pk = ANY($1::bigint[])`,
    values: [plainArray(batch.uploadPks), repositoryPk],
  });
  return rows[0]?.results ?? 0;
}

/** Deletes the batch's queue rows; per upload, seconds from its acknowledgement to now (DB clock). */
export async function finishFold(client: PoolClient, uploadPks: readonly string[]): Promise<number[]> {
  const { rows } = await client.query<{ lag_s: number }>({
    name: 'flaky-fold-done',
    text: `DELETE FROM flaky_fold_pending WHERE upload_pk = ANY($1::bigint[])
           RETURNING extract(epoch FROM clock_timestamp() - enqueued_at)::float8 AS lag_s`,
    values: [plainArray(uploadPks)],
  });
  return rows.map((r) => r.lag_s);
}

/** The repositories with uploads waiting to be folded. */
export async function repositoriesToFold(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ repository_pk: string }>(
    `SELECT DISTINCT repository_pk FROM flaky_fold_pending ORDER BY repository_pk`,
  );
  return rows.map((r) => r.repository_pk);
}

/** Age of the oldest acknowledged upload not folded yet, in seconds (0 when none waits). */
export async function oldestPendingFoldSeconds(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ lag: number }>(
    `SELECT coalesce(extract(epoch FROM clock_timestamp() - min(enqueued_at)), 0)::float8 AS lag
       FROM flaky_fold_pending`,
  );
  return rows[0]?.lag ?? 0;
}
