-- Up Migration
-- Quarantine with a lifecycle (issue 28, docs/flaky-tests.md §5 "Quarantine lifecycle"):
--  - an override can carry an expiry and an owner; from `override_expires_at` on it stops applying
--    (flaky/quarantine.ts reads it so at every instant), and the sweep records the expiry: the
--    override goes back to UNSPECIFIED with a quarantine_override_history row by 'railyard';
--  - a test quarantined by rule (AUTO_QUARANTINE) is released after the repository's
--    `release_after_clean_runs` consecutive clean runs, counted by the fold in `clean_runs` (since the
--    test's last failing run); `quarantine_released_at` says it is released, a failing run ends the
--    release (`release_ended_at`), and quarantine_releases keeps each release's story.
--
-- Invariants: `override_expires_at` is NULL for UNSPECIFIED; `quarantine_released_at` is NULL or the
-- start of the test's one open quarantine_releases row (ended_at NULL).

ALTER TABLE repositories
  ADD COLUMN release_after_clean_runs integer NOT NULL DEFAULT 20
    CHECK (release_after_clean_runs BETWEEN 1 AND 1000);

ALTER TABLE test_cases
  ADD COLUMN override_expires_at timestamptz,
  ADD COLUMN override_owner text,
  ADD COLUMN clean_runs integer NOT NULL DEFAULT 0,
  ADD COLUMN quarantine_released_at timestamptz,
  ADD COLUMN release_ended_at timestamptz;

-- The sweep's expiries: only tests whose override has an expiry.
CREATE INDEX test_cases_override_expiry_idx ON test_cases (repository_pk, override_expires_at)
  WHERE override_expires_at IS NOT NULL;

ALTER TABLE quarantine_override_history
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN owner text;

-- One row per release: what quarantined the test (status and reason), since when, when and why it
-- was released, and when and why the release ended (NULL while it holds).
CREATE TABLE quarantine_releases (
  pk                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_pk             bigint NOT NULL REFERENCES test_cases (pk) ON DELETE CASCADE,
  quarantined_since   timestamptz NOT NULL,
  quarantined_status  text NOT NULL,
  quarantined_reason  text NOT NULL,
  released_at         timestamptz NOT NULL,
  clean_runs          integer NOT NULL,
  release_reason      text NOT NULL,
  ended_at            timestamptz,
  ended_reason        text
);
CREATE INDEX quarantine_releases_test_idx ON quarantine_releases (test_pk, pk);

-- Down Migration
DROP TABLE quarantine_releases;
ALTER TABLE quarantine_override_history DROP COLUMN expires_at, DROP COLUMN owner;
DROP INDEX test_cases_override_expiry_idx;
ALTER TABLE test_cases
  DROP COLUMN override_expires_at,
  DROP COLUMN override_owner,
  DROP COLUMN clean_runs,
  DROP COLUMN quarantine_released_at,
  DROP COLUMN release_ended_at;
ALTER TABLE repositories DROP COLUMN release_after_clean_runs;
