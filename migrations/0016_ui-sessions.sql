-- Up Migration
-- Dashboard sign-in sessions (api/ui/sessions.ts). A person signs in at /ui with an API key; the
-- browser then holds only a random session id in an HttpOnly cookie. Only the SHA-256 of that id is
-- stored, so a database read does not yield a usable cookie. A session belongs to the key it was made
-- with: revoking the key ends it (the lookup joins api_keys), as does signing out (the row is deleted)
-- or its expiry. csrf_token is the per-session token every state-changing form must send back.
CREATE TABLE ui_sessions (
  id_hash          bytea PRIMARY KEY CHECK (length(id_hash) = 32),
  api_key_id       uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  csrf_token       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL
);

-- Sign-in keeps at most a few sessions per key (oldest dropped) and sweeps expired ones.
CREATE INDEX ui_sessions_key_idx ON ui_sessions (api_key_id, created_at);
CREATE INDEX ui_sessions_expiry_idx ON ui_sessions (expires_at);

-- Down Migration
DROP TABLE ui_sessions;
