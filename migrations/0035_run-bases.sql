-- Up Migration
-- Thin run content (issue 25, ADR 0025): a run's content is a thin git bundle `<tested> ^<basis>` plus
-- the basis it needs, staged once per (organisation, repository, basis commit) and shared by every run
-- of that repository that builds on it.
--
-- run_bases / run_basis_chunks: the full git bundle of one basis commit.
-- Invariants:
-- - At most one row per (organisation, host, owner, name, sha): a basis is content-addressed, and two
--   workers staging the same one at once keep the first (ON CONFLICT DO NOTHING).
-- - A basis is at most the worker's RAILYARD_RUN_CONTENT_MAX_MB, in chunks of 1 MiB.
-- - A basis referenced by a run's content is never deleted (the foreign key, and the staging worker
--   holds the basis row's lock while it inserts the run's content); an unreferenced one is swept once
--   unused for its retention (test-runs/store/run-bases.ts).
--
-- run_contents.basis_id: NULL for a full bundle (the tested commit and its history); otherwise the
-- content is thin and its prerequisite is that basis.

CREATE TABLE run_bases (
  id               bigserial PRIMARY KEY,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  sha              text NOT NULL,
  size_bytes       bigint NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organisation_id, host, owner, name, sha)
);

CREATE INDEX run_bases_repository_idx ON run_bases (organisation_id, host, owner, name, created_at DESC);
CREATE INDEX run_bases_last_used_idx ON run_bases (last_used_at);

CREATE TABLE run_basis_chunks (
  basis_id  bigint NOT NULL REFERENCES run_bases (id) ON DELETE CASCADE,
  seq       integer NOT NULL,
  bytes     bytea NOT NULL,
  PRIMARY KEY (basis_id, seq)
);

ALTER TABLE run_contents ADD COLUMN basis_id bigint REFERENCES run_bases (id);
CREATE INDEX run_contents_basis_idx ON run_contents (basis_id) WHERE basis_id IS NOT NULL;

-- Down Migration
ALTER TABLE run_contents DROP COLUMN basis_id;
DROP TABLE run_basis_chunks;
DROP TABLE run_bases;
