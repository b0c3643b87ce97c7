-- Up Migration
-- The separate executor (issue 17, docs/operations.md "Executors"): the control plane hands each test
-- run's content to an executor through the API, and caps how many runs one organisation has at once.
--
-- run_contents / run_content_chunks: a git bundle of the tested commit, staged by the control plane's
-- worker and fetched once or more (activity retries) by the executor with a bearer token.
-- Invariants:
-- - Only the token's SHA-256 is stored; the token itself travels in the executor activity's input.
-- - A bundle is at most the worker's RAILYARD_RUN_CONTENT_MAX_MB, in chunks of 1 MiB, so neither side
--   ever holds a whole bundle in memory.
-- - Rows are deleted when their run ends; expired rows are swept by the next staging, a batch at a time.
--
-- run_slots: one row per test run that holds one of its organisation's executor slots.
-- Invariants:
-- - At most RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION unexpired rows per organisation (taken under an
--   advisory lock per organisation, activities/executor/run-slots.ts).
-- - A row ends with its run, or at expires_at (the run's longest possible time) if its workflow was
--   terminated, so a lost release costs the organisation one slot for a bounded time only.

CREATE TABLE run_contents (
  token_sha256     bytea PRIMARY KEY,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  test_run_id      text NOT NULL,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  sha              text NOT NULL,
  size_bytes       bigint NOT NULL,
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX run_contents_run_idx ON run_contents (test_run_id);
CREATE INDEX run_contents_expires_idx ON run_contents (expires_at);

CREATE TABLE run_content_chunks (
  token_sha256  bytea NOT NULL REFERENCES run_contents (token_sha256) ON DELETE CASCADE,
  seq           integer NOT NULL,
  bytes         bytea NOT NULL,
  PRIMARY KEY (token_sha256, seq)
);

CREATE TABLE run_slots (
  test_run_id      text PRIMARY KEY,
  organisation_id  uuid NOT NULL,
  expires_at       timestamptz NOT NULL,
  taken_at         timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX run_slots_organisation_idx ON run_slots (organisation_id, expires_at);

-- Down Migration
DROP TABLE run_slots;
DROP TABLE run_content_chunks;
DROP TABLE run_contents;
