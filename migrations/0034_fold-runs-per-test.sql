-- Up Migration
-- The fold reads a batch's runs from its queue rows, not from test_results by upload (issue 26,
-- flaky/store/batch-runs.ts). The acknowledgement writes, per test of the upload and in one row it
-- writes anyway, the test's pk, its non-skipped attempts and its failing attempts, counted from the
-- attempts it COPYs in the same transaction. That is all the fold needs of the raw rows (an upload's
-- attempts share its time and infra flag; outcomes are pass, fail or skip), so the index by upload
-- (0025) goes: it cost every COPYed attempt an index entry (about a quarter of the COPY's CPU, measured
-- on 1M rows) for the fold's reads alone. The crash guarantee is unchanged: the counts are committed
-- with the raw rows, and deleted with the queue row by the fold that folds them.
--
-- Rows queued before this migration get their counts from their raw rows here, through the index
-- about to go; new rows must give them (no default).

ALTER TABLE flaky_fold_pending
  ADD COLUMN test_pks bigint[] NOT NULL DEFAULT '{}',
  ADD COLUMN runs integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN fails integer[] NOT NULL DEFAULT '{}';

UPDATE flaky_fold_pending p
   SET test_pks = c.test_pks, runs = c.runs, fails = c.fails
  FROM (SELECT s.upload_pk, array_agg(s.test_pk ORDER BY s.test_pk) AS test_pks,
               array_agg(s.runs ORDER BY s.test_pk) AS runs, array_agg(s.fails ORDER BY s.test_pk) AS fails
          FROM (SELECT r.upload_pk, r.test_pk,
                       (count(*) FILTER (WHERE r.outcome <> 'skip'))::integer AS runs,
                       (count(*) FILTER (WHERE r.outcome = 'fail'))::integer AS fails
                  FROM test_results r
                 WHERE r.upload_pk IN (SELECT upload_pk FROM flaky_fold_pending)
                 GROUP BY r.upload_pk, r.test_pk) s
         GROUP BY s.upload_pk) c
 WHERE c.upload_pk = p.upload_pk;

ALTER TABLE flaky_fold_pending
  ALTER COLUMN test_pks DROP DEFAULT,
  ALTER COLUMN runs DROP DEFAULT,
  ALTER COLUMN fails DROP DEFAULT;

DROP INDEX IF EXISTS test_results_upload_idx;

-- Down Migration
CREATE INDEX test_results_upload_idx ON test_results (upload_pk);
ALTER TABLE flaky_fold_pending DROP COLUMN test_pks, DROP COLUMN runs, DROP COLUMN fails;
