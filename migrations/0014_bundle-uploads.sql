-- Up Migration
-- Trunk bundle uploads (api/routes/bundle-uploads/): createBundleUpload records what an upload URL is
-- for (organisation, repository, expiry) and the signed PUT of that URL receives the bundle once.
--
-- Invariants:
-- - A row is created 'pending' and leaves it once: to 'receiving' when a PUT with a valid signature
--   claims it before expires_at (one claim wins), then to 'received' (stored) or 'refused'; a PUT that
--   failed on railyard's side (5xx) puts it back to 'pending' so the client's retry can use the URL.
-- - The repository was checked as the organisation's when the row was made; the PUT ingests into
--   exactly that repository of exactly that organisation, whatever the bundle's meta.json says.
-- - Rows are useless once expired (the signed URL carries the same expiry) and are deleted then.

CREATE TABLE bundle_uploads (
  id               uuid PRIMARY KEY,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL CHECK (length(host) BETWEEN 1 AND 255),
  owner            text NOT NULL CHECK (length(owner) BETWEEN 1 AND 255),
  name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  state            text NOT NULL CHECK (state IN ('pending', 'receiving', 'received', 'refused')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  CHECK ((state IN ('received', 'refused')) = (finished_at IS NOT NULL))
);

-- The per-organisation count of live URLs and the purge of expired rows.
CREATE INDEX bundle_uploads_organisation_expires_idx ON bundle_uploads (organisation_id, expires_at);
CREATE INDEX bundle_uploads_expires_idx ON bundle_uploads (expires_at);

-- Down Migration
DROP TABLE bundle_uploads;
