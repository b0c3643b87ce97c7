-- Up Migration
-- The event log (activities/events): every PR transition the queue workflows make, appended in
-- batches by the appendTransitions activity (one call per main-loop drain). It feeds the metrics
-- endpoint, the webhooks and PR history.
--
-- Invariants:
-- - pr_transitions is append-only; (submission_id, seq) identifies an event, so an activity retried
--   after a crash inserts nothing twice (INSERT ... ON CONFLICT DO NOTHING).
-- - pr_submissions is a projection of the log: per submission, its transition with the highest seq.
--   Batches may arrive out of order (a retried drain behind a newer one), so it only ever moves to a
--   higher seq. The metric gauges read it instead of scanning the log.
-- - event_log_queues lists every queue the log has seen, for "all repositories" and for the 404 of
--   an unknown repository.

CREATE TABLE pr_transitions (
  submission_id    text NOT NULL,
  seq              integer NOT NULL CHECK (seq >= 1),
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  pr_number        bigint NOT NULL,
  from_state       text CHECK (from_state IN ('not_ready', 'pending', 'testing', 'tests_passed',
                     'pending_failure', 'merged', 'failed', 'cancelled')),
  to_state         text NOT NULL CHECK (to_state IN ('not_ready', 'pending', 'testing', 'tests_passed',
                     'pending_failure', 'merged', 'failed', 'cancelled')),
  reason           text NOT NULL,
  test_run_id      text,
  -- The PRs tested together in test_run_id; more than one is a batch.
  batch            bigint[] NOT NULL DEFAULT '{}',
  is_bisection     boolean NOT NULL DEFAULT false,
  test_branch      text,
  test_branch_sha  text,
  -- The workflow clock of the transition, not the time of the insert.
  at               timestamptz NOT NULL,
  title            text NOT NULL DEFAULT '',
  author           text NOT NULL DEFAULT '',
  head_sha         text NOT NULL DEFAULT '',
  recorded_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (submission_id, seq)
);

-- The metrics window: one organisation's transitions of the last hour.
CREATE INDEX pr_transitions_recent_idx ON pr_transitions (organisation_id, at);
-- PR history: the transitions of one PR of one queue, in time order.
CREATE INDEX pr_transitions_pr_idx
  ON pr_transitions (organisation_id, host, owner, name, target_branch, pr_number, at);

CREATE TABLE pr_submissions (
  submission_id     text PRIMARY KEY,
  organisation_id   uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host              text NOT NULL,
  owner             text NOT NULL,
  name              text NOT NULL,
  target_branch     text NOT NULL,
  pr_number         bigint NOT NULL,
  state             text NOT NULL,
  is_bisection      boolean NOT NULL,
  seq               integer NOT NULL,
  state_changed_at  timestamptz NOT NULL
);

-- The gauges count only submissions still in a queue; terminal ones stay out of this index.
CREATE INDEX pr_submissions_active_idx
  ON pr_submissions (organisation_id, host, owner, name, target_branch, state)
  WHERE state NOT IN ('merged', 'failed', 'cancelled');

CREATE TABLE event_log_queues (
  organisation_id  uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  host             text NOT NULL,
  owner            text NOT NULL,
  name             text NOT NULL,
  target_branch    text NOT NULL,
  first_seen_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organisation_id, host, owner, name, target_branch)
);

-- Down Migration
DROP TABLE event_log_queues;
DROP TABLE pr_submissions;
DROP TABLE pr_transitions;
