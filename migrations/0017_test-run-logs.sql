-- Up Migration
-- Logs of the `command` runner's test runs (docs/adr/0011-run-logs.md): the worker copies each run's
-- log here when the run ends, so the API serves it (GET /v1/testRuns/<id>/log) without sharing the
-- worker's disk, which a production deployment does not.
--
-- Invariants:
-- - One row per run and organisation; a retried run replaces its row (the last attempt's log).
-- - content holds at most the worker's RAILYARD_RUN_LOG_MAX_BYTES: a longer log keeps its head and its
--   tail, with a line saying how much was left out between them (truncated = true).
-- - Rows older than the retention are deleted by the worker as it stores new ones, a bounded batch at a
--   time, so the table does not grow without end.

CREATE TABLE test_run_logs (
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  test_run_id      text NOT NULL,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  content          bytea NOT NULL,
  original_bytes   bigint NOT NULL,
  truncated        boolean NOT NULL,
  stored_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organisation_id, test_run_id)
);

CREATE INDEX test_run_logs_stored_at_idx ON test_run_logs (stored_at);

-- Down Migration
DROP TABLE test_run_logs;
