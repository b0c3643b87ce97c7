-- Up Migration
-- GitHub App installations linked to organisations (docs/adr/0008-github-installations.md). The
-- organisation an installation is linked to owns the repositories the installation covers: each is a
-- repository_owners row with claimed_by 'github-installation' and the installation's id, written when
-- the installation's repositories are listed (on linking, and later by webhooks and reconciliation).
--
-- Invariants:
-- - An installation is linked to at most one organisation (its id is the primary key); moving it is
--   unlink + link, which operators do.
-- - Unlinking deletes the installation's repository claims (ON DELETE CASCADE), so a repository is
--   never owned through an installation that is no longer linked.
-- - Claims of the GitHub host without an installation (first-use, api, operator, migration) stay in
--   the table but do not authorise requests while a GitHub App is configured.

CREATE TABLE github_installations (
  installation_id  bigint PRIMARY KEY CHECK (installation_id > 0),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  -- The repo.host its repositories are named with (github.com, or a GitHub Enterprise Server host).
  host             text NOT NULL CHECK (length(host) BETWEEN 1 AND 255),
  account_login    text NOT NULL CHECK (length(account_login) BETWEEN 1 AND 255),
  -- 'operator' (npm run github -- link) or 'api' (POST /v1/github/installations/link).
  linked_by        text NOT NULL CHECK (linked_by IN ('operator', 'api')),
  linked_at        timestamptz NOT NULL DEFAULT now(),
  suspended_at     timestamptz
);

CREATE INDEX github_installations_organisation_idx ON github_installations (organisation_id);

ALTER TABLE repository_owners
  ADD COLUMN github_installation_id bigint REFERENCES github_installations (installation_id) ON DELETE CASCADE;

CREATE INDEX repository_owners_github_installation_idx ON repository_owners (github_installation_id)
  WHERE github_installation_id IS NOT NULL;

-- Down Migration
ALTER TABLE repository_owners DROP COLUMN github_installation_id;
DROP TABLE github_installations;
