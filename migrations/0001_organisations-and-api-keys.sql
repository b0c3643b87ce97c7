-- Up Migration
-- Tenants and their API keys. Only a SHA-256 hash of each key is stored; the short prefix identifies a
-- key in listings and narrows the lookup before the constant-time hash comparison.
CREATE TABLE organisations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  name             text NOT NULL DEFAULT '',
  prefix           text NOT NULL,
  key_hash         bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz,
  revoked_at       timestamptz
);

CREATE INDEX api_keys_prefix_idx ON api_keys (prefix);
CREATE INDEX api_keys_organisation_idx ON api_keys (organisation_id);

-- Down Migration
DROP TABLE api_keys;
DROP TABLE organisations;
