-- Up Migration
-- The flaky-test store (docs/flaky-tests.md §4). Everything hangs off an organisation's repository;
-- a key never sees another organisation's rows because every read starts from
-- (organisation_id, host, owner, name) or (organisation_id, test id).
--
-- Write path: one transaction per upload appends raw attempts (test_results) and folds them into
-- the rollups (test_day_rollups, test_failure_fingerprints, test_pr_failures) with aggregated
-- upserts. Read path: the rollups for whole UTC days, raw attempts only for the partial days at the
-- edges of a window (through narrow covering indexes).

CREATE TABLE repositories (
  pk                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id        uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host                   text NOT NULL,
  owner                  text NOT NULL,
  name                   text NOT NULL,
  quarantine_enabled     boolean NOT NULL DEFAULT false,
  auto_quarantine        boolean NOT NULL DEFAULT false,
  -- Partial ClassificationParams; validated by resolveClassificationParams before it is stored.
  classification         jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- `{ticket}` is replaced by the linked ticket key to build ticket.html_url.
  ticket_url_template    text,
  -- When quarantine_enabled or auto_quarantine last changed (AUTO_QUARANTINE's quarantined_at).
  quarantine_changed_at  timestamptz NOT NULL DEFAULT now(),
  settings_updated_at    timestamptz,
  settings_updated_by    text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organisation_id, host, owner, name)
);

-- One row per upload; the unique key is what makes a re-sent upload a no-op.
CREATE TABLE uploads (
  pk              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  repository_pk   bigint NOT NULL REFERENCES repositories (pk) ON DELETE CASCADE,
  upload_id       text NOT NULL,
  commit_sha      text NOT NULL,
  branch          text NOT NULL,
  pr_number       bigint,
  job_name        text,
  job_url         text,
  job_attempt     integer NOT NULL DEFAULT 1,
  variant         text NOT NULL DEFAULT '',
  -- SHA-256 over the metadata and the parsed attempts: a re-send with other content is a conflict.
  content_digest  text NOT NULL,
  files           jsonb NOT NULL,
  tests           integer NOT NULL,
  -- D4 summary: non-skipped attempts and failing attempts over the whole upload.
  results         integer NOT NULL,
  failures        integer NOT NULL,
  skipped         integer NOT NULL,
  -- Decided at ingest with the repository's parameters then; rollups and raw rows agree with it.
  infra           boolean NOT NULL,
  received_at     timestamptz NOT NULL,
  UNIQUE (repository_pk, upload_id)
);

CREATE TABLE test_cases (
  pk                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id      uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  -- testCaseId(): UUIDv5 of (repository, file, classname, parent, name, variant).
  id                   uuid NOT NULL,
  repository_pk        bigint NOT NULL REFERENCES repositories (pk) ON DELETE CASCADE,
  file                 text,
  classname            text NOT NULL DEFAULT '',
  parent               text NOT NULL DEFAULT '',
  name                 text NOT NULL,
  variant              text NOT NULL DEFAULT '',
  codeowners           text[] NOT NULL DEFAULT '{}',
  status               text NOT NULL DEFAULT 'healthy' CHECK (status IN ('healthy', 'flaky', 'broken')),
  status_reason        text NOT NULL DEFAULT 'no_results',
  status_at            timestamptz NOT NULL,
  -- Evaluation time of the stored status; NULL until the first classification.
  classified_at        timestamptz,
  -- Written only when the test fails, so an upload of passing tests rewrites no test-case row.
  last_failure_at      timestamptz,
  quarantine_override  text NOT NULL DEFAULT 'UNSPECIFIED'
    CHECK (quarantine_override IN ('UNSPECIFIED', 'ALWAYS_QUARANTINE', 'NEVER_QUARANTINE')),
  override_by          text,
  override_at          timestamptz,
  override_reason      text,
  ticket               text,
  ticket_linked_at     timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organisation_id, id)
) WITH (fillfactor = 80);  -- room for HOT updates of status and last_failure_at

-- list-unhealthy-tests and the re-evaluation sweep (keyset by id within a status).
CREATE INDEX test_cases_unhealthy_idx ON test_cases (repository_pk, status, id) WHERE status <> 'healthy';
-- list-quarantined-tests: tests with a manual override.
CREATE INDEX test_cases_override_idx ON test_cases (repository_pk, id)
  WHERE quarantine_override <> 'UNSPECIFIED';
CREATE INDEX test_cases_ticket_idx ON test_cases (organisation_id, ticket) WHERE ticket IS NOT NULL;

-- Raw attempts, append-only. No primary key on purpose: (upload, test, attempt) is unique by
-- construction (combineUploadFiles numbers attempts, the upload row is unique), and every index here
-- costs ingest throughput.
CREATE TABLE test_results (
  upload_pk      bigint NOT NULL,
  test_pk        bigint NOT NULL,
  repository_pk  bigint NOT NULL,
  at             timestamptz NOT NULL,
  attempt        smallint NOT NULL,
  outcome        text NOT NULL CHECK (outcome IN ('pass', 'fail', 'skip')),
  infra          boolean NOT NULL,
  duration_ms    integer,
  fingerprint    text
);

-- Classification history and the partial-day edges of rate windows, index-only.
CREATE INDEX test_results_test_at_idx ON test_results (test_pk, at)
  INCLUDE (upload_pk, attempt, outcome, infra);
-- The partial-day edges of list-failing-tests: failing attempts only, a small fraction of rows.
CREATE INDEX test_results_failures_idx ON test_results (repository_pk, at)
  INCLUDE (test_pk) WHERE outcome = 'fail';

-- Per test and UTC day. attempts/failures count non-skipped attempts of non-infra uploads (the
-- failure rates); infra_* the excluded ones (they still list a test as failing).
CREATE TABLE test_day_rollups (
  test_pk          bigint NOT NULL,
  day              date NOT NULL,
  repository_pk    bigint NOT NULL,
  attempts         integer NOT NULL,
  failures         integer NOT NULL,
  infra_attempts   integer NOT NULL,
  infra_failures   integer NOT NULL,
  last_failure_at  timestamptz,
  PRIMARY KEY (test_pk, day)
) WITH (fillfactor = 80);

-- list-failing-tests: which tests failed on which whole days, with the count it sorts by.
CREATE INDEX test_day_rollups_failing_idx ON test_day_rollups (repository_pk, day)
  INCLUDE (test_pk, failures, infra_failures) WHERE failures + infra_failures > 0;

-- most_common_failures: per test, fingerprint and day.
CREATE TABLE test_failure_fingerprints (
  test_pk       bigint NOT NULL,
  day           date NOT NULL,
  fingerprint   text NOT NULL,
  occurrences   integer NOT NULL,
  summary       text NOT NULL,
  sample        text NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  PRIMARY KEY (test_pk, day, fingerprint)
);

-- pull_requests_impacted_last_7d: the distinct PRs a test failed on, per day (non-infra uploads).
CREATE TABLE test_pr_failures (
  test_pk    bigint NOT NULL,
  day        date NOT NULL,
  pr_number  bigint NOT NULL,
  PRIMARY KEY (test_pk, day, pr_number)
);

-- Every change of status value (and each test's first classification).
CREATE TABLE test_status_history (
  pk               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_pk          bigint NOT NULL REFERENCES test_cases (pk) ON DELETE CASCADE,
  from_status      text,
  to_status        text NOT NULL,
  reason           text NOT NULL,
  status_at        timestamptz NOT NULL,
  evaluated_at     timestamptz NOT NULL,
  trigger          text NOT NULL CHECK (trigger IN ('ingest', 'schedule'))
);
CREATE INDEX test_status_history_test_idx ON test_status_history (test_pk, pk);

-- Who set which quarantine override when (the current one is on test_cases).
CREATE TABLE quarantine_override_history (
  pk            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_pk       bigint NOT NULL REFERENCES test_cases (pk) ON DELETE CASCADE,
  previous      text NOT NULL,
  override      text NOT NULL,
  set_by        text NOT NULL,
  reason        text,
  set_at        timestamptz NOT NULL
);
CREATE INDEX quarantine_override_history_test_idx ON quarantine_override_history (test_pk, pk);

-- Down Migration
DROP TABLE quarantine_override_history;
DROP TABLE test_status_history;
DROP TABLE test_pr_failures;
DROP TABLE test_failure_fingerprints;
DROP TABLE test_day_rollups;
DROP TABLE test_results;
DROP TABLE test_cases;
DROP TABLE uploads;
DROP TABLE repositories;
