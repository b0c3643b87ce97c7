/**
 * Migration 0026 on a database with results: the rows stay, in the partition `test_results_legacy`
 * (attached with its own indexes, nothing copied), the reads still use the (test_pk, at) index, new
 * rows go to day partitions made two weeks ahead, and an upload row makes its day's partition when
 * there is none (the trigger that stands in for a DEFAULT partition).
 */
import { readdirSync } from 'node:fs';
import type { Pool } from 'pg';
import { createPool } from '../../../stores/db';
import { MIGRATIONS_DIR, runMigrations } from '../../../stores/migrate';
import { listResultPartitions } from '../../../flaky/store/result-partitions';
import { createScratchDatabase } from '../../support/postgres';

const MIGRATION = '0026_result-partitions-and-retention';
const DAY = 86_400_000;
let url: string;
let pool: Pool;

async function migrateBefore(name: string): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
  await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: files.filter((f) => f < `${name}.sql`).length,
    singleTransaction: true,
    log: () => undefined,
  });
}

const now = new Date();
const old = new Date(now.getTime() - 400 * DAY);

beforeAll(async () => {
  url = await createScratchDatabase('partitions_migration');
  pool = createPool(url, { max: 3 });
  await migrateBefore(MIGRATION);
  // Raw rows as 0002's table holds them (it has no foreign keys): a year old, and from today.
  await pool.query(
    `INSERT INTO test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra, duration_ms, fingerprint)
     SELECT 1, t, 1, CASE WHEN t % 2 = 0 THEN $1::timestamptz ELSE $2::timestamptz END, 1,
            CASE WHEN t % 3 = 0 THEN 'fail' ELSE 'pass' END, false, 5, NULL
     FROM generate_series(1, 300) AS t`,
    [old, now],
  );
  await runMigrations(url);
});
afterAll(() => pool.end());

test('the rows are kept, in the legacy partition, and the reads still use the index', async () => {
  const { rows } = await pool.query<{ partition: string; n: number }>(
    `SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM test_results GROUP BY 1`,
  );
  expect(rows).toEqual([{ partition: 'test_results_legacy', n: 300 }]);
  const { rows: indexes } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent IN ('test_results_test_at_idx'::regclass, 'test_results_failures_idx'::regclass)
     AND c.relname LIKE 'test_results_legacy%' ORDER BY 1`,
  );
  expect(indexes.map((r) => r.name)).toEqual([
    'test_results_legacy_failures_idx',
    'test_results_legacy_test_at_idx',
  ]);
  await pool.query('ANALYZE test_results');
  const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN SELECT upload_pk, attempt, outcome FROM test_results WHERE test_pk = 3 AND at >= $1 AND at < $2`,
    [old, new Date(now.getTime() + DAY)],
  );
  expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('test_results_legacy_test_at_idx');
});

test('day partitions are made two weeks ahead of the legacy one', async () => {
  const partitions = await listResultPartitions(pool);
  const legacy = partitions.find((p) => p.name === 'test_results_legacy')!;
  expect(legacy.lower).toBeNull();
  expect(legacy.upper!.getTime()).toBe(Math.floor(now.getTime() / DAY) * DAY + DAY);
  const days = partitions.filter((p) => p.name !== 'test_results_legacy');
  expect(days).toHaveLength(14);
  expect(days[0]!.lower!.getTime()).toBe(legacy.upper!.getTime());
  for (const p of days) expect(p.upper!.getTime() - p.lower!.getTime()).toBe(DAY);
});

test('an upload row makes the partition of its day when none covers it', async () => {
  const far = new Date('2040-02-29T23:59:00Z');
  await pool.query(
    `INSERT INTO organisations (slug) VALUES ('acme');
     INSERT INTO repositories (organisation_id, host, owner, name)
       SELECT id, 'github.com', 'acme', 'shop' FROM organisations WHERE slug = 'acme'`,
  );
  await pool.query(
    `INSERT INTO uploads (repository_pk, upload_id, commit_sha, branch, content_digest, files, tests, results,
       failures, skipped, infra, received_at)
     SELECT pk, 'u1', 'abc', 'main', 'd', '[]', 1, 1, 0, 0, false, $1 FROM repositories`,
    [far],
  );
  await pool.query(
    `INSERT INTO test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra)
     VALUES (2, 1, 1, $1, 1, 'pass', false)`,
    [far],
  );
  const { rows } = await pool.query<{ partition: string }>(
    `SELECT tableoid::regclass::text AS partition FROM test_results WHERE at = $1`,
    [far],
  );
  expect(rows).toEqual([{ partition: 'test_results_p20400229' }]);
});
