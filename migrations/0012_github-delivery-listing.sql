-- Up Migration
-- How far the GitHub reconciliation has read the app's webhook delivery log (`GET /app/hook/deliveries`,
-- newest first) when looking for failed deliveries to redeliver (docs/github.md "Webhooks and
-- reconciliation"), one row per GitHub App.
--
-- Invariants:
-- - listed_through: every delivery GitHub made up to this time (GitHub's clock, its delivered_at) has
--   been looked at. The next run reads back to it (less a small overlap) and no further.
-- - A run that stops at its page bound before reaching listed_through leaves the listing's cursor in
--   resume_cursor and the newest delivered_at of that listing in resume_through; the next run
--   continues from the cursor, and only once it reaches listed_through does listed_through become
--   resume_through. Both are set or both are null.

CREATE TABLE github_delivery_listings (
  app_id          bigint PRIMARY KEY CHECK (app_id > 0),
  listed_through  timestamptz NOT NULL,
  resume_cursor   text CHECK (length(resume_cursor) BETWEEN 1 AND 500),
  resume_through  timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((resume_cursor IS NULL) = (resume_through IS NULL))
);

-- Down Migration
DROP TABLE github_delivery_listings;
