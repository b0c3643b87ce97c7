-- Up Migration
-- Who made a bundle upload URL (issue 24): an outsider holding only a repository's public id
-- (x-trunk-public-repo-id) may hold a few upload URLs of the owner's, counted apart from the URLs its
-- keyed clients hold, so a stranger can never spend the owner's own budget of live URLs
-- (flaky/store/pending-uploads.ts). Existing rows were made with keys or are about to expire.

ALTER TABLE bundle_uploads ADD COLUMN by_public_id boolean NOT NULL DEFAULT false;

DROP INDEX bundle_uploads_organisation_expires_idx;
CREATE INDEX bundle_uploads_organisation_expires_idx
  ON bundle_uploads (organisation_id, by_public_id, expires_at);

-- Down Migration
DROP INDEX bundle_uploads_organisation_expires_idx;
CREATE INDEX bundle_uploads_organisation_expires_idx ON bundle_uploads (organisation_id, expires_at);
ALTER TABLE bundle_uploads DROP COLUMN by_public_id;
