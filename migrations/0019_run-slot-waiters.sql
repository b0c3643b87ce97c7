-- Up Migration
-- Runs waiting for one of their organisation's executor slots (activities/executor/run-slots.ts): when
-- a run ends, the oldest live waiter of its organisation is woken at once (a Temporal signal) instead of
-- every waiter polling, and an organisation's waiting runs take freed slots in the order they asked.
--
-- Invariants:
-- - One row per waiting run; it goes when the run takes a slot, or is ignored (and swept) once it has not
--   asked again for WAITER_STALE_SECONDS (its workflow was terminated).
-- - seen_at moves each time the run asks again (at least every 30 s while it waits).

CREATE TABLE run_slot_waiters (
  test_run_id      text PRIMARY KEY,
  organisation_id  uuid NOT NULL,
  workflow_id      text NOT NULL,
  since            timestamptz NOT NULL DEFAULT now(),
  seen_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX run_slot_waiters_organisation_idx ON run_slot_waiters (organisation_id, since);

-- Down Migration
DROP TABLE run_slot_waiters;
