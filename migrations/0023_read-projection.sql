-- Up Migration
-- The read projection (docs/adr/0016-reads-from-the-projection.md): getQueue and listPullRequests
-- answer from these tables instead of querying the queue's and the PRs' workflows.
--
-- Invariants:
-- - queue_views holds one row per queue workflow id: its latest QueueSnapshot (contract) as the
--   workflow answered it. `generation` is the queue's first run id (a queue deleted and created again
--   is a new generation); within one, `revision` only grows, so a write that lost a race (an older
--   snapshot landing after a newer one) changes nothing. `deleted` rows read as no queue.
-- - pr_records holds one row per submission: the record folded from the notices the PR's workflow is
--   sent (contract/pr-record.ts, the same fold the workflow runs), with the fold's progress (`applied`,
--   `pending`, `early`), so notices delivered twice or out of order fold exactly as in the workflow.

CREATE TABLE queue_views (
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  generation       text NOT NULL,
  revision         bigint NOT NULL,
  deleted          boolean NOT NULL DEFAULT false,
  snapshot         jsonb NOT NULL,
  projected_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organisation_id, host, owner, name, target_branch)
);

CREATE TABLE pr_records (
  submission_id    text PRIMARY KEY,
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  pr_number        bigint NOT NULL,
  submitted_at     timestamptz NOT NULL,
  state            text NOT NULL,
  -- When the submission reached merged, failed or cancelled; null while it is in the queue.
  concluded_at     timestamptz,
  -- The listing's order: open submissions (infinity) first, then the latest concluded.
  listed_at        timestamptz GENERATED ALWAYS AS (coalesce(concluded_at, 'infinity'::timestamptz)) STORED,
  applied          integer NOT NULL,
  record           jsonb NOT NULL,
  pending          jsonb NOT NULL DEFAULT '[]',
  early            jsonb
);

-- listPullRequests: one queue's submissions, open ones first, then the latest concluded.
CREATE INDEX pr_records_listing_idx
  ON pr_records (organisation_id, host, owner, name, target_branch,
                 listed_at DESC, submitted_at DESC, submission_id DESC);

-- Down Migration
DROP TABLE pr_records;
DROP TABLE queue_views;
