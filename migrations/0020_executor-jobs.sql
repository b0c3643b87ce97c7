-- Up Migration
-- Executors on the HTTPS protocol (issue 24, ADR 0014): an executor holds only the API's URL and an
-- executor credential; it takes test runs from the API, which completes the worker's asynchronously
-- completed executeTestRun activity with the task token stored here.
--
-- executors: one row per credential an operator issued (`npm run executors -- add <name>`).
-- Invariants:
-- - Only the credential's SHA-256 is stored; the credential is shown once, when it is issued.
-- - A revoked row never authenticates again (revoked_at set; the row is kept for the listing).
--
-- executor_jobs: one row per attempt of an executeTestRun activity waiting for or held by an executor.
-- Invariants:
-- - At most one row per test run: a new attempt (the previous one timed out and Temporal retried it)
--   replaces the older one, so a report for the older attempt finds no job and is refused.
-- - A job belongs to the task queue of its activity (the deployment's RAILYARD_TASK_QUEUE): an API
--   hands out only its own task queue's jobs, so deployments sharing a database never mix runs.
-- - A queued row has no executor; a claimed row has exactly one (claimed with FOR UPDATE SKIP LOCKED).
-- - A row goes when its report or failure reached Temporal, or when Temporal no longer knows its
--   activity (the workflow ended or the attempt timed out).

CREATE TABLE executors (
  id             uuid PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  token_sha256   bytea NOT NULL UNIQUE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz,
  last_seen_at   timestamptz,
  announced      jsonb
);

CREATE TABLE executor_jobs (
  id               uuid PRIMARY KEY,
  test_run_id      text NOT NULL UNIQUE,
  task_queue       text NOT NULL,
  attempt          integer NOT NULL,
  task_token       bytea NOT NULL,
  input            jsonb NOT NULL,
  state            text NOT NULL CHECK (state IN ('queued', 'claimed')),
  executor_id      uuid REFERENCES executors (id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  claimed_at       timestamptz,
  heartbeat_at     timestamptz,
  CHECK ((state = 'queued') = (executor_id IS NULL AND claimed_at IS NULL))
);

CREATE INDEX executor_jobs_queued_idx ON executor_jobs (task_queue, created_at) WHERE state = 'queued';

-- Down Migration
DROP TABLE executor_jobs;
DROP TABLE executors;
