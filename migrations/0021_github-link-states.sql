-- Up Migration
-- The `state` of a GitHub linking flow (docs/adr/0015-installation-linking-proof.md). A person signed in
-- to the dashboard asks to link installation N; railyard sends them to GitHub's OAuth page with a random
-- state and keeps only its SHA-256 here, bound to the organisation, to the dashboard session that asked
-- (so the redirect back is accepted only in that same browser session) and to N. GitHub's redirect is
-- accepted once: consuming the state deletes the row, whatever the outcome.
--
-- Invariants:
-- - A state is valid for one use, before expires_at, in the session that asked for it; signing out or
--   the session's end drops it (ON DELETE CASCADE).
-- - The state itself is never stored, so a database read yields no usable state.
CREATE TABLE github_link_states (
  state_hash       bytea PRIMARY KEY CHECK (length(state_hash) = 32),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  session_hash     bytea NOT NULL REFERENCES ui_sessions (id_hash) ON DELETE CASCADE,
  installation_id  bigint NOT NULL CHECK (installation_id > 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL
);

CREATE INDEX github_link_states_session_idx ON github_link_states (session_hash, created_at);
CREATE INDEX github_link_states_expiry_idx ON github_link_states (expires_at);

-- Down Migration
DROP TABLE github_link_states;
