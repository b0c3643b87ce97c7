-- Up Migration
-- Per-test summaries (issue 26 "reads from per-test summaries", docs/adr/0021-per-test-failure-summaries.md):
-- the wire text of a test's most common failures (TestCase.most_common_failures), kept by the fold
-- (flaky/fold/, store/test-case-summaries.ts) in the transaction that adds its failure fingerprints,
-- so list-failing-tests and get-test-details read it with one probe per test instead of grouping and
-- sorting up to 90 days of fingerprint rows per test per request.
--
-- Why a stored answer with its validity rather than per-day buckets: the list is a top-N over the
-- failure window's whole UTC days, so it only changes when a fingerprint row is added (the fold
-- recomputes the row then) or when a day it counted leaves the window. A row is computed for day
-- `from_day` and stays exact through `through_day` = (first day its listed fingerprints were counted)
-- + window_days - 1: a fingerprint outside the top only loses occurrences as days leave, so it cannot
-- enter the list. Outside [from_day, through_day], or when the repository's window or top-N changed,
-- the read computes the list itself with the same SQL (lazily, per test, correct as time passes
-- without uploads). Per-day buckets would still need the group-and-sort per read.
-- The 24 h / 7 d rates and PRs impacted stay on test_day_rollups and test_pr_failures plus the raw
-- partial days: their windows slide by the millisecond, which no stored value answers exactly.
--
-- Invariants: one row per test (gone with it); only the fold writes rows, retention
-- (store/result-maintenance.ts) deletes those that counted a day it trims; `through_day` is
-- 'infinity' for a row that counted no fingerprint.

CREATE TABLE test_case_summaries (
  test_pk               bigint PRIMARY KEY REFERENCES test_cases (pk) ON DELETE CASCADE,
  repository_pk         bigint NOT NULL,
  window_days           integer NOT NULL,
  top_failures          integer NOT NULL,
  from_day              date NOT NULL,
  through_day           date NOT NULL,
  most_common_failures  text NOT NULL
);

-- Backfill: every test with a fingerprint in the widest window (90 days), computed for today with its
-- repository's limits, by the same expressions as store/test-case-details.ts (defaults: window 30
-- days, top 5; bounds 90 and 100). The others have no row, and their reads compute the (empty) list.
INSERT INTO test_case_summaries
  (test_pk, repository_pk, window_days, top_failures, from_day, through_day, most_common_failures)
SELECT t.pk, t.repository_pk, lim.w, lim.top, lim.today,
  coalesce(fails.oldest + (lim.w - 1), 'infinity'::date), fails.list
FROM (SELECT DISTINCT test_pk FROM test_failure_fingerprints
       WHERE day >= (now() AT TIME ZONE 'UTC')::date - 89) x
JOIN test_cases t ON t.pk = x.test_pk
JOIN repositories rp ON rp.pk = t.repository_pk
CROSS JOIN LATERAL (
  SELECT LEAST(coalesce((rp.classification->>'failureWindowDays')::float8, 30), 90)::int AS w,
         LEAST(coalesce((rp.classification->>'topFailures')::int, 5), 100) AS top,
         (now() AT TIME ZONE 'UTC')::date AS today
) lim
CROSS JOIN LATERAL (
  SELECT '[' || coalesce(string_agg('{"summary":' || to_json(g.summary)::text || ',"occurrence_count":' || g.n
           || ',"last_occurrence":"' || to_char(g.last AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}',
           ',' ORDER BY g.n DESC, g.last DESC, g.summary), '') || ']' AS list,
         min(g.oldest) AS oldest
  FROM (
    SELECT min(f.summary) AS summary, sum(f.occurrences)::int AS n, max(f.last_seen_at) AS last,
      min(f.day) AS oldest
    FROM test_failure_fingerprints f
    WHERE f.test_pk = t.pk AND f.day >= lim.today - (lim.w - 1)
    GROUP BY f.fingerprint
    ORDER BY n DESC, last DESC, summary
    LIMIT lim.top
  ) g
) fails;

-- Down Migration
DROP TABLE test_case_summaries;
