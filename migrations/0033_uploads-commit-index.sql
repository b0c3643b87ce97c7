-- Up Migration
-- The uploads of one commit (issue 28; flaky/store/commit-failures.ts): a merge-queue run judged by CI's
-- statuses reads the failed tests CI uploaded for its test commit. Without an index that is a scan of
-- the repository's uploads, once per failed run; with it, the commit's few uploads.
--
-- Not CONCURRENTLY: stores/migrate.ts applies migrations in one transaction, where CREATE INDEX
-- CONCURRENTLY is refused. uploads holds one row per upload (not per result), so the build is short;
-- its SHARE lock holds back new uploads only while it runs.

CREATE INDEX uploads_commit_idx ON uploads (repository_pk, commit_sha);

-- Down Migration
DROP INDEX uploads_commit_idx;
