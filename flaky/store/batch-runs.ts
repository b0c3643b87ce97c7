/**
 * What the fold reads of a batch's raw rows, without reading them (issue 26, migration 0034): each
 * queue row (flaky_fold_pending) carries, per test of its upload, the test's pk, its non-skipped
 * attempts and its failing attempts (`test_pks`, `runs`, `fails`, written by the acknowledgement from
 * the same attempts it COPYs into test_results). Every fold statement needs only these per (test,
 * upload), with the upload's time, infra flag and PR: an upload's attempts all have its
 * `received_at` as their `at` and its `infra` as theirs, and outcomes are pass, fail or skip, so
 * passes are runs - fails.
 *
 * So test_results needs no index by upload: the COPY writes two index entries per attempt instead of
 * three, and the fold reads one array row per upload instead of every attempt through an index.
 *
 * batchRunsSql(uploads) is a FROM item (alias `b`) for the queue rows of `uploads` (the SQL of a
 * bigint[]): one row per test and upload, columns test_pk, upload_pk, runs, fails, at, day (UTC), infra, pr_number.
 * Every test of the upload is there, also those with only skipped attempts (runs 0).
 */

/** The batch's runs per (test, upload); `uploads` is the SQL of the upload pks (a bigint[]). */
export function batchRunsSql(uploads: string): string {
  return `(SELECT x.test_pk, p.upload_pk, x.runs, x.fails, u.received_at AS at,
    (u.received_at AT TIME ZONE 'UTC')::date AS day, u.infra, u.pr_number
  FROM flaky_fold_pending p JOIN uploads u ON u.pk = p.upload_pk
  CROSS JOIN LATERAL unnest(p.test_pks, p.runs, p.fails) AS x(test_pk, runs, fails)
  WHERE p.upload_pk = ANY(${uploads})) b`;
}
