-- Up Migration
-- Raw results partitioned by UTC day, and retention per organisation (docs/adr/0019-result-retention.md,
-- docs/flaky-tests.md §4 "What is kept how long").
--
-- test_results becomes a table partitioned by range of `at`, with one partition per UTC day, made
-- ahead of time by the maintenance job (flaky/store/result-maintenance.ts) and, when an upload's day
-- has none, by the upload itself inside its transaction (the trigger on uploads below). There
-- is no DEFAULT partition on purpose: with one, PostgreSQL refuses DETACH PARTITION … CONCURRENTLY,
-- and the old days could only be removed under an ACCESS EXCLUSIVE lock on the whole table.
--
-- Existing rows are kept where they are: the old table becomes the partition `test_results_legacy`
-- for [MINVALUE, the day after its newest row or tomorrow), keeping its two indexes (they match the
-- partitioned ones, so they are attached, not rebuilt). Nothing is copied; attaching scans the table
-- once to check its bound (about a second per 10M rows). Its rows go away as any partition's: batched
-- deletes per repository, then the whole partition once every organisation's retention has passed.

-- Per organisation, days of raw results and of rollups to keep; NULL: the deployment's default
-- (RAILYARD_FLAKY_RAW_RETENTION_DAYS / RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS). The bounds are the ones
-- flaky/retention.ts checks with a sentence naming the field; these are the backstop.
ALTER TABLE organisations
  ADD COLUMN raw_retention_days integer CHECK (raw_retention_days BETWEEN 8 AND 400),
  ADD COLUMN rollup_retention_days integer CHECK (rollup_retention_days BETWEEN 91 AND 3650),
  ADD COLUMN retention_updated_at timestamptz,
  ADD COLUMN retention_updated_by text;

-- How far each repository's rows were already trimmed by batched deletes, so a run only works on
-- what became old since the last one.
ALTER TABLE repositories
  ADD COLUMN results_trimmed_before timestamptz,
  ADD COLUMN rollups_trimmed_before date;

ALTER TABLE test_results RENAME TO test_results_legacy;
ALTER INDEX test_results_test_at_idx RENAME TO test_results_legacy_test_at_idx;
ALTER INDEX test_results_failures_idx RENAME TO test_results_legacy_failures_idx;
-- 0025's index by upload (the fold reads an upload's attempts back), when that migration made it.
ALTER INDEX IF EXISTS test_results_upload_idx RENAME TO test_results_legacy_upload_idx;

-- The same columns, constraint and indexes as 0002's table (docs/flaky-tests.md §4).
CREATE TABLE test_results (
  upload_pk      bigint NOT NULL,
  test_pk        bigint NOT NULL,
  repository_pk  bigint NOT NULL,
  at             timestamptz NOT NULL,
  attempt        smallint NOT NULL,
  outcome        text NOT NULL CONSTRAINT test_results_outcome_check CHECK (outcome IN ('pass', 'fail', 'skip')),
  infra          boolean NOT NULL,
  duration_ms    integer,
  fingerprint    text
) PARTITION BY RANGE (at);

CREATE INDEX test_results_test_at_idx ON test_results (test_pk, at)
  INCLUDE (upload_pk, attempt, outcome, infra);
CREATE INDEX test_results_failures_idx ON test_results (repository_pk, at)
  INCLUDE (test_pk) WHERE outcome = 'fail';
DO $$
BEGIN
  IF to_regclass('test_results_legacy_upload_idx') IS NOT NULL THEN
    CREATE INDEX test_results_upload_idx ON test_results (upload_pk);
  END IF;
END;
$$;

-- Every partition of test_results with its bounds as instants (lower NULL for MINVALUE), read from
-- the catalog so it is never out of step with it; detach_pending marks one a DETACH CONCURRENTLY left
-- half done (finished with DETACH … FINALIZE).
CREATE VIEW flaky_result_partitions AS
SELECT c.relname::text AS name,
       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\)'))[1]::timestamptz AS lower,
       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz AS upper,
       i.inhdetachpending AS detach_pending
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'test_results'::regclass;

-- Makes sure the UTC day `day` has a partition; answers the partition made, or NULL when one already
-- covered the day. The table is created on its own and then attached: ATTACH takes SHARE UPDATE
-- EXCLUSIVE on test_results, which neither reads nor inserts wait for (CREATE TABLE … PARTITION OF
-- would take ACCESS EXCLUSIVE). An advisory lock serialises two callers making the same day.
CREATE FUNCTION flaky_ensure_result_partition(day date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz := (to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00')::timestamptz;
  hi timestamptz := lo + interval '24 hours';
  part text := 'test_results_p' || to_char(day, 'YYYYMMDD');
BEGIN
  -- The common case, cheap enough for every upload: the day's own partition exists.
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN
    RETURN NULL;
  END IF;
  IF EXISTS (SELECT 1 FROM flaky_result_partitions p
             WHERE (p.lower IS NULL OR p.lower < hi) AND p.upper > lo) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('flaky_result_partitions'));
  IF EXISTS (SELECT 1 FROM flaky_result_partitions p
             WHERE (p.lower IS NULL OR p.lower < hi) AND p.upper > lo) THEN
    RETURN NULL;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE test_results INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
  EXECUTE format('ALTER TABLE test_results ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
  RETURN part;
END;
$$;

-- The equivalent of a DEFAULT partition: every upload row is inserted before its attempts, in the
-- same transaction, with received_at = the attempts' `at` (flaky/ingest/), so its day's partition
-- exists before any attempt is written, whoever writes it. Normally the maintenance job made it days
-- ago and this is one catalog lookup; if not (the job stopped for two weeks, a clock far off), the
-- upload makes it, inside its transaction: nothing is ever refused for want of a partition.
CREATE FUNCTION flaky_upload_result_partition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM flaky_ensure_result_partition((NEW.received_at AT TIME ZONE 'UTC')::date);
  RETURN NEW;
END;
$$;
CREATE TRIGGER uploads_result_partition BEFORE INSERT ON uploads
  FOR EACH ROW EXECUTE FUNCTION flaky_upload_result_partition();

DO $$
DECLARE
  tomorrow timestamptz := date_trunc('day', now(), 'UTC') + interval '24 hours';
  newest timestamptz;
  upper_bound timestamptz;
BEGIN
  SELECT date_trunc('day', max(at), 'UTC') + interval '24 hours' INTO newest FROM test_results_legacy;
  upper_bound := greatest(tomorrow, coalesce(newest, tomorrow));
  EXECUTE format('ALTER TABLE test_results ATTACH PARTITION test_results_legacy FOR VALUES FROM (MINVALUE) TO (%L)',
                 upper_bound);
  -- Two weeks ahead, as the maintenance job keeps it.
  FOR d IN 0..13 LOOP
    PERFORM flaky_ensure_result_partition(((upper_bound AT TIME ZONE 'UTC')::date + d));
  END LOOP;
END;
$$;

-- Down Migration
DROP TRIGGER uploads_result_partition ON uploads;
DROP FUNCTION flaky_upload_result_partition();
DROP FUNCTION flaky_ensure_result_partition(date);
DROP VIEW flaky_result_partitions;
ALTER TABLE test_results DETACH PARTITION test_results_legacy;
INSERT INTO test_results_legacy SELECT * FROM test_results;
DROP TABLE test_results;
ALTER TABLE test_results_legacy RENAME TO test_results;
ALTER INDEX test_results_legacy_test_at_idx RENAME TO test_results_test_at_idx;
ALTER INDEX test_results_legacy_failures_idx RENAME TO test_results_failures_idx;
ALTER INDEX IF EXISTS test_results_legacy_upload_idx RENAME TO test_results_upload_idx;
ALTER TABLE repositories DROP COLUMN results_trimmed_before, DROP COLUMN rollups_trimmed_before;
ALTER TABLE organisations DROP COLUMN raw_retention_days, DROP COLUMN rollup_retention_days,
  DROP COLUMN retention_updated_at, DROP COLUMN retention_updated_by;
