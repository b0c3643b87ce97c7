-- Up Migration
-- The outbox of the flaky-test webhook events (activities/flaky/events.ts, docs/webhooks.md): one row
-- per test_case.* event not yet handed to the webhook deliveries.
--
-- Invariants:
-- - A row is written in the same transaction as the change it announces (a test_status_history row
--   whose status value changed, or a quarantine_override_history row whose override changed), so a
--   committed change always has its event and a rolled-back one never has.
-- - Rows are written only while the organisation has an enabled subscription to the event type;
--   otherwise nobody would receive the event and nothing is kept.
-- - (event_type, source_pk) names the event for good: the delivery keys derive from it, so a row
--   dispatched twice (a crash between recording the deliveries and deleting the row) is delivered
--   once. A row is deleted once its deliveries are recorded and their workflows started.

CREATE TABLE test_case_event_outbox (
  pk               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id  uuid NOT NULL,
  test_pk          bigint NOT NULL REFERENCES test_cases (pk) ON DELETE CASCADE,
  event_type       text NOT NULL
                     CHECK (event_type IN ('test_case.status_changed', 'test_case.quarantining_setting_changed')),
  -- test_status_history.pk or quarantine_override_history.pk, by event_type.
  source_pk        bigint NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_type, source_pk)
);

-- ON DELETE CASCADE from test_cases.
CREATE INDEX test_case_event_outbox_test_idx ON test_case_event_outbox (test_pk);

-- Down Migration
DROP TABLE test_case_event_outbox;
