-- Up Migration
-- The queue views of the read projection as rows (ADR 0016, issue 25): one row per enqueued PR, so the
-- event log's append changes the entries its transitions moved instead of storing the queue's whole
-- snapshot (333 KB at 1,000 PRs) on every append and every API change.
--
-- Invariants:
-- - queue_views keeps one row per queue: its version (`generation`, `revision`, `deleted`, as in
--   0023) and what the snapshot says of the whole queue (`settings`, `in_queue`,
--   `test_runs_in_progress`). Every change of a queue's entries takes this row's lock first, so the
--   writers of one queue apply one after the other.
-- - queue_view_entries holds the queue's enqueued PRs: `rank` orders them (the snapshot's order;
--   ranks are spaced so a PR moved between two others changes one row), `revision` is the queue
--   revision that last wrote the row (never above its queue's), `digest` a hash of `entry` that lets
--   a writer skip rows that did not change.
-- - A queue row with `revision` -1 holds no view yet (made by a writer that then found it could not
--   store one); it reads as no row.

CREATE TABLE queue_view_entries (
  organisation_id  uuid NOT NULL,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  pr_number        bigint NOT NULL,
  rank             double precision NOT NULL,
  revision         bigint NOT NULL,
  digest           text NOT NULL,
  entry            jsonb NOT NULL,
  PRIMARY KEY (organisation_id, host, owner, name, target_branch, pr_number),
  FOREIGN KEY (organisation_id, host, owner, name, target_branch)
    REFERENCES queue_views (organisation_id, host, owner, name, target_branch) ON DELETE CASCADE
);

-- getQueue: one queue's entries in order.
CREATE INDEX queue_view_entries_order_idx
  ON queue_view_entries (organisation_id, host, owner, name, target_branch, rank);

ALTER TABLE queue_views
  ADD COLUMN settings jsonb,
  ADD COLUMN in_queue integer NOT NULL DEFAULT 0,
  ADD COLUMN test_runs_in_progress jsonb;

-- Existing views become rows, in their order (digest '' matches no entry: the next writer rewrites them).
INSERT INTO queue_view_entries (organisation_id, host, owner, name, target_branch, pr_number, rank,
  revision, digest, entry)
SELECT v.organisation_id, v.host, v.owner, v.name, v.target_branch, (e.value ->> 'pr')::bigint,
  e.ordinality * 1048576, v.revision, '', e.value
FROM queue_views v, jsonb_array_elements(v.snapshot -> 'enqueued') WITH ORDINALITY AS e
ON CONFLICT DO NOTHING;

UPDATE queue_views SET settings = snapshot -> 'settings',
  in_queue = coalesce((snapshot ->> 'inQueue')::integer, 0),
  test_runs_in_progress = snapshot -> 'testRunsInProgress';

ALTER TABLE queue_views ALTER COLUMN settings SET NOT NULL;
ALTER TABLE queue_views DROP COLUMN snapshot;

-- Down Migration
ALTER TABLE queue_views ADD COLUMN snapshot jsonb;
UPDATE queue_views v SET snapshot = jsonb_strip_nulls(jsonb_build_object(
  'settings', v.settings,
  'inQueue', v.in_queue,
  'testRunsInProgress', v.test_runs_in_progress,
  'generation', v.generation,
  'revision', v.revision,
  'deleted', v.deleted,
  'enqueued', coalesce((SELECT jsonb_agg(e.entry ORDER BY e.rank) FROM queue_view_entries e
    WHERE (e.organisation_id, e.host, e.owner, e.name, e.target_branch)
      = (v.organisation_id, v.host, v.owner, v.name, v.target_branch)), '[]'::jsonb)));
DELETE FROM queue_views WHERE snapshot IS NULL;
ALTER TABLE queue_views ALTER COLUMN snapshot SET NOT NULL;
ALTER TABLE queue_views DROP COLUMN test_runs_in_progress, DROP COLUMN in_queue, DROP COLUMN settings;
DROP TABLE queue_view_entries;
