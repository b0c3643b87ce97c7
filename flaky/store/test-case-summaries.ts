/**
 * Per-test summaries (migration 0028, docs/adr/0021-per-test-failure-summaries.md): the wire text of a
 * test's most common failures, kept by the fold so a page reads it with one probe per test instead of
 * grouping and sorting up to 90 days of failure fingerprints per test per request.
 *
 * A row answers for the read days [from_day, through_day] under its (window_days, top_failures):
 *  - from_day is the day it was computed for; it counted every fingerprint row from
 *    from_day - window_days + 1 on (none after is excluded, as in the read);
 *  - through_day is the first counted day of its listed fingerprints + window_days - 1: until then no
 *    row it counted leaves the window (a fingerprint outside the top only loses occurrences as days
 *    leave, so it cannot enter the list). 'infinity' when it counted nothing;
 *  - only the fold adds fingerprint rows, and it recomputes the row of every test it adds them to, in
 *    the same transaction (and a bounded number of the repository's rows that went stale, for the
 *    batch's day); retention deletes the rows whose counted days it trims.
 * Outside that range, or when the repository's limits changed, the read computes the list itself
 * (test-case-details.ts), with the same SQL (failureListSql), so the answer is the same either way.
 * The fold finds a repository's stale rows through (repository_pk, through_day, test_pk) (migration
 * 0032), not a scan of every repository's summaries per batch.
 */
import { type PoolClient } from '../../stores/db';
import { type Queryable } from './db';
import { plainArray } from './pg-arrays';
import { sqlParams } from './sql-params';
import { failureLimits, failureListSql } from './test-case-details';
import { dayOf } from './windows';

/** Summaries gone stale that a batch recomputes besides its own tests (bounds the batch's extra work). */
export const STALE_SUMMARIES_PER_BATCH = 500;

/**
 * Recomputes, for day `at`, the summaries of the tests whose failure fingerprints the given pending
 * uploads add to (call after foldRows, before finishFold deletes the pending rows), and up to
 * STALE_SUMMARIES_PER_BATCH of the repository's summaries that no longer answer for that day, so a
 * test that stopped failing gets a valid summary again with the repository's next upload. In key
 * order, as every fold writer.
 */
export async function refreshTestCaseSummaries(
  client: PoolClient,
  repositoryPk: string,
  uploadPks: readonly string[],
  at: Date,
): Promise<void> {
  const p = sqlParams();
  const uploads = p.add(plainArray(uploadPks), 'bigint[]');
  const today = p.add(dayOf(at), 'date');
  const repository = p.add(repositoryPk, 'bigint');
  const stale = p.add(STALE_SUMMARIES_PER_BATCH, 'int');
  const limits = failureLimits(p);
  await client.query({
    name: 'flaky-fold-summaries',
    text: `WITH tests AS (
  SELECT (e ->> 0)::bigint AS pk
  FROM flaky_fold_pending q CROSS JOIN LATERAL jsonb_array_elements(q.failures) e
  WHERE q.upload_pk = ANY(${uploads})
  UNION
  (SELECT s.test_pk FROM test_case_summaries s
    WHERE s.repository_pk = ${repository} AND s.through_day < ${today}
    ORDER BY s.test_pk LIMIT ${stale})
)
INSERT INTO test_case_summaries AS s
  (test_pk, repository_pk, window_days, top_failures, from_day, through_day, most_common_failures)
SELECT t.pk, t.repository_pk, ${limits.windowDays}, ${limits.top}, ${today},
  coalesce(fails.oldest + (${limits.windowDays} - 1), 'infinity'::date), fails.list
FROM tests JOIN test_cases t ON t.pk = tests.pk JOIN repositories rp ON rp.pk = t.repository_pk
CROSS JOIN LATERAL (${failureListSql(today, limits, 'wire')}) fails
ORDER BY t.pk
ON CONFLICT (test_pk) DO UPDATE SET
  window_days = EXCLUDED.window_days, top_failures = EXCLUDED.top_failures, from_day = EXCLUDED.from_day,
  through_day = EXCLUDED.through_day, most_common_failures = EXCLUDED.most_common_failures`,
    values: [...p.values],
  });
}

/** Deletes the summaries of `tests` (an array literal) that counted fingerprint days before `cutoff`. */
export async function dropTrimmedSummaries(db: Queryable, tests: string, cutoff: string): Promise<void> {
  await db.query(
    `DELETE FROM test_case_summaries
      WHERE test_pk = ANY($1::bigint[]) AND from_day - (window_days - 1) < $2::date`,
    [tests, cutoff],
  );
}
