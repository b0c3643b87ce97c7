-- Up Migration
-- The fold's stale-summary lookup (issue 26; flaky/store/test-case-summaries.ts, refreshTestCaseSummaries):
-- every fold batch picks up to 500 of its repository's summaries that no longer answer for the
-- batch's day (`repository_pk = $r AND through_day < $today ORDER BY test_pk LIMIT 500`). Without an
-- index that is a sequential scan of every repository's summaries, once per batch: on the 1M-result
-- benchmark database (1,637 rows) 0.18-0.30 ms and 76 buffers; with one summary for each of 100,000
-- tests 7-19 ms. With this index it reads only the repository's stale entries (index only): 0.02-0.08
-- ms and 2-4 buffers, 0.14-0.22 ms at 100,000 (bench/README.md "Stale-summary index").
--
-- Why (repository_pk, through_day, test_pk) and not (repository_pk, test_pk): the fold refreshes the
-- stale rows as it goes, so stale entries are few and a range on through_day finds exactly them; an
-- index in test_pk order would walk the repository's valid rows to find the few stale ones. test_pk is
-- a key column so the lookup never visits the table.
--
-- Not CONCURRENTLY: stores/migrate.ts applies migrations in one transaction (singleTransaction), where
-- CREATE INDEX CONCURRENTLY is refused. test_case_summaries is not partitioned and holds one row per
-- test with a failure in 90 days, so the plain build is short; its SHARE lock holds back only the
-- fold's writes (reads go on), and a held-back fold batch just waits.

CREATE INDEX test_case_summaries_stale_idx ON test_case_summaries (repository_pk, through_day, test_pk);

-- Down Migration
DROP INDEX test_case_summaries_stale_idx;
