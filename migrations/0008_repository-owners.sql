-- Up Migration
-- Repository ownership (docs/adr/0006-repository-ownership.md): a repository (host, owner, name)
-- belongs to exactly one organisation, and every merge-queue, status, flaky-test and metrics request
-- for it with another organisation's key answers 404.
--
-- Invariants:
-- - One row per repository, compared case-insensitively (GitHub names are; two spellings of one
--   repository must not get two owners).
-- - Claims come from an operator (`npm run repos -- add`), from the API (`POST /v1/repositories/claim`)
--   or from an organisation's first queue or upload of an unclaimed repository; see the ADR.
--
-- Existing data: the organisation that created a repository's first queue or upload owns it. The
-- queue listing (event_log_queues), the event log's submissions and the flaky-test repositories are
-- the records of first use; the earliest wins, ties broken by organisation id so the result is stable.

CREATE TABLE repository_owners (
  host             text NOT NULL CHECK (length(host) BETWEEN 1 AND 255),
  owner            text NOT NULL CHECK (length(owner) BETWEEN 1 AND 255),
  name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  -- How the claim was made: 'operator', 'api', 'first-use' or 'migration'.
  claimed_by       text NOT NULL,
  claimed_at       timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX repository_owners_key_idx ON repository_owners (lower(host), lower(owner), lower(name));
CREATE INDEX repository_owners_organisation_idx ON repository_owners (organisation_id);

INSERT INTO repository_owners (host, owner, name, organisation_id, claimed_by, claimed_at)
SELECT DISTINCT ON (lower(host), lower(owner), lower(name))
  host, owner, name, organisation_id, 'migration', first_at
FROM (
  SELECT host, owner, name, organisation_id, first_seen_at AS first_at FROM event_log_queues
  UNION ALL
  SELECT host, owner, name, organisation_id, min(at) FROM pr_transitions
    GROUP BY host, owner, name, organisation_id
  UNION ALL
  SELECT host, owner, name, organisation_id, created_at FROM repositories
) AS first_use
WHERE length(host) BETWEEN 1 AND 255 AND length(owner) BETWEEN 1 AND 255 AND length(name) BETWEEN 1 AND 255
ORDER BY lower(host), lower(owner), lower(name), first_at, organisation_id;

-- Down Migration
DROP TABLE repository_owners;
