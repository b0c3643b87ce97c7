-- Up Migration
-- Ingest: durable first, fold later (issue 26, docs/adr/0018-flaky-fold-in-the-api.md). An upload is
-- acknowledged once its raw rows are stored: the upload row, the test cases it needs, its attempts
-- (test_results, written with binary COPY) and one row here. The fold (flaky/fold/) later turns the
-- raw rows into rollups, failure fingerprints, PR failures, last_failure_at and classification, per
-- repository in batches, and deletes the uploads' rows here IN THE SAME TRANSACTION: a row here is
-- exactly "acknowledged and not yet folded", so a crash before the fold's commit folds the upload
-- after the restart, and a fold that committed never folds it again.
--
-- `failures` carries what test_results does not: per (test, fingerprint) the count, the normalised
-- summary and the latest sample of the upload's failing attempts, as
-- [[test_pk, fingerprint, occurrences, summary, sample], ...] (usually a few entries per upload).
-- `enqueued_at` is the database's clock at acknowledgement (uploads.received_at is the store's
-- clock, which the benchmark simulates): the fold lag is measured from it.

CREATE TABLE flaky_fold_pending (
  upload_pk      bigint PRIMARY KEY REFERENCES uploads (pk) ON DELETE CASCADE,
  repository_pk  bigint NOT NULL,
  failures       jsonb NOT NULL,
  enqueued_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- A fold takes one repository's oldest uploads; the loop lists the repositories with work.
CREATE INDEX flaky_fold_pending_repository_idx ON flaky_fold_pending (repository_pk, upload_pk);

-- The fold reads an upload's attempts back by upload. Upload keys only grow, so inserts land on the
-- index's rightmost page (cheap next to the (test_pk, at) index); it also works on a partitioned
-- test_results (an index on the parent is created on every partition).
CREATE INDEX test_results_upload_idx ON test_results (upload_pk);

-- Down Migration
DROP INDEX test_results_upload_idx;
DROP TABLE flaky_fold_pending;
