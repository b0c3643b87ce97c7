-- Up Migration
-- The processes of each kind that are alive (issue 27): every API process beats here every few
-- seconds, and a limit that must hold across replicas (an organisation's requests per second) is
-- split over the ones seen recently (platform/replica-census.ts, stores/replicas.ts).
--
-- Invariants: one row per process (kind, id); `last_seen` is the database's clock, so replicas on
-- machines whose clocks disagree still agree on who is alive. A process that stops removes its row;
-- one that dies stops counting once its row is older than the census's staleness, and its row is
-- removed by the next beat of any process after an hour.

CREATE TABLE process_replicas (
  kind       text NOT NULL,
  id         text NOT NULL,
  last_seen  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, id)
);

-- Down Migration
DROP TABLE process_replicas;
