-- Up Migration
-- Landing proof (issue 28, docs/git-host.md "Landing proof"): every landing the queue made, written
-- with its `merged` transition (events/store/log-store.ts): the commit the target moved to, the tree
-- the passing run tested (NULL: a direct merge, untested) and the tree the target held when read back
-- right after the landing. The landing check (workflows/landing/, every 15 minutes) compares them
-- again on the host for the landings of the last day and records what it found: `held`, or `changed`
-- with a sentence (the landed commit left the branch, or its id now holds another tree). The API's
-- `railyard_landings_changed` gauge counts the changed ones (docs/operations.md, alert LandingChanged).

CREATE TABLE landings (
  submission_id    text NOT NULL,
  seq              integer NOT NULL,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  pr_number        bigint NOT NULL,
  landed_sha       text NOT NULL,
  tested_tree      text,
  landed_tree      text,
  rebased          boolean NOT NULL DEFAULT false,
  at               timestamptz NOT NULL,
  check_state      text NOT NULL DEFAULT 'unchecked' CHECK (check_state IN ('unchecked', 'held', 'changed')),
  check_detail     text,
  checked_at       timestamptz,
  PRIMARY KEY (submission_id, seq)
);

-- The check's and the gauge's window: the landings of the last day.
CREATE INDEX landings_recent_idx ON landings (at);

-- Down Migration
DROP TABLE landings;
