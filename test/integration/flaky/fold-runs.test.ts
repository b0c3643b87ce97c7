/**
 * The fold reads a batch's runs from its queue rows, not from the raw rows (migration 0034,
 * flaky/store/batch-runs.ts): the per-test counts an acknowledgement queues must be the ones its raw
 * rows hold, the migration must give the rows queued before it the same counts from their raw rows,
 * and the fold of those rows must write what the raw rows say: rollups, PR failures, last failures.
 */
import { readdirSync } from 'node:fs';
import { foldRepository } from '../../../flaky/fold';
import { MIGRATIONS_DIR } from '../../../stores/migrate';
import { createHarness, type Harness, junit } from './harness';

const MIGRATION = '0034_fold-runs-per-test';
let h: Harness;

beforeAll(async () => {
  // Acknowledged, never folded: no loop runs, as if the process stopped after its acknowledgements.
  h = await createHarness('fold_runs', new Date('2026-11-20T20:00:00.000Z'), { fold: { kind: 'async' } });
});
afterAll(() => h.close());

async function migrate(direction: 'up' | 'down'): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_.*\.sql$/.test(f));
  expect(files).toContain(`${MIGRATION}.sql`);
  await runner({
    databaseUrl: h.url,
    dir: MIGRATIONS_DIR,
    direction,
    migrationsTable: 'pgmigrations',
    count: direction === 'down' ? files.filter((f) => f > `${MIGRATION}.sql`).length + 1 : Infinity,
    singleTransaction: true,
    log: () => undefined,
  });
}

/** Per queued upload, test and counts, as the queue rows hold them. */
async function queued() {
  const { rows } = await h.pool.query<{ upload_pk: string; test_pk: string; runs: number; fails: number }>(
    `SELECT p.upload_pk, x.test_pk, x.runs, x.fails
       FROM flaky_fold_pending p CROSS JOIN LATERAL unnest(p.test_pks, p.runs, p.fails) AS x(test_pk, runs, fails)
      ORDER BY 1, 2`,
  );
  return rows;
}

/** The same, counted straight from test_results. */
async function fromRawRows() {
  const { rows } = await h.pool.query<{ upload_pk: string; test_pk: string; runs: number; fails: number }>(
    `SELECT upload_pk, test_pk, (count(*) FILTER (WHERE outcome <> 'skip'))::int AS runs,
            (count(*) FILTER (WHERE outcome = 'fail'))::int AS fails
       FROM test_results GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return rows;
}

test('queued counts equal the raw rows, survive the migration, and fold into what the raw rows say', async () => {
  for (let u = 0; u < 6; u += 1) {
    h.tick(3 * 3_600_000); // across UTC days
    const answer = await h.uploadJson(
      { upload_id: `run-${u}`, commit_sha: `sha-${u}`, ...(u % 2 === 1 ? { pr_number: 40 + u } : {}) },
      [
        // Retried failures, a test failing twice, skipped-only tests, and passes.
        { name: 'a.xml', content: junit({ t1: u % 3 === 0 ? 'FP' : 'P', t2: 'FF', t3: 'S', t4: 'SP' }) },
        { name: 'b.xml', content: junit({ t5: u % 2 === 0 ? 'F' : 'P' }, { classname: 'shop.Other' }) },
      ],
    );
    expect(answer.statusCode).toBe(200);
  }
  const raw = await fromRawRows();
  expect(raw).toHaveLength(6 * 5);
  expect(raw.some((r) => r.runs === 0)).toBe(true); // skipped-only tests are queued too
  expect(await queued()).toEqual(raw);

  // Rows queued before 0034 get their counts from their raw rows when it runs.
  await migrate('down');
  const { rows: indexes } = await h.pool.query(
    `SELECT 1 FROM pg_class WHERE relname = 'test_results_upload_idx'`,
  );
  expect(indexes).toHaveLength(1);
  await migrate('up');
  expect(await queued()).toEqual(raw);
  const { rows: gone } = await h.pool.query(
    `SELECT 1 FROM pg_class WHERE relname = 'test_results_upload_idx'`,
  );
  expect(gone).toHaveLength(0);

  const { rows: repos } = await h.pool.query<{ pk: string }>(`SELECT pk FROM repositories`);
  const folded = await foldRepository(h.pool, repos[0]!.pk);
  expect(folded.uploads).toBe(6);
  expect(folded.results).toBe((await h.pool.query(`SELECT 1 FROM test_results`)).rowCount);

  const q = async (sql: string) => (await h.pool.query<Record<string, unknown>>(sql)).rows;
  expect(
    await q(`SELECT test_pk, day::text, attempts, failures, infra_attempts, infra_failures, last_failure_at
               FROM test_day_rollups ORDER BY 1, 2`),
  ).toEqual(
    await q(`SELECT r.test_pk, (r.at AT TIME ZONE 'UTC')::date::text AS day,
                    (count(*) FILTER (WHERE r.outcome <> 'skip' AND NOT r.infra))::int AS attempts,
                    (count(*) FILTER (WHERE r.outcome = 'fail' AND NOT r.infra))::int AS failures,
                    (count(*) FILTER (WHERE r.outcome <> 'skip' AND r.infra))::int AS infra_attempts,
                    (count(*) FILTER (WHERE r.outcome = 'fail' AND r.infra))::int AS infra_failures,
                    max(r.at) FILTER (WHERE r.outcome = 'fail') AS last_failure_at
               FROM test_results r GROUP BY 1, 2 HAVING count(*) FILTER (WHERE r.outcome <> 'skip') > 0
              ORDER BY 1, 2`),
  );
  const prs = await q(`SELECT test_pk, day::text, pr_number FROM test_pr_failures ORDER BY 1, 2, 3`);
  expect(prs.length).toBeGreaterThan(0);
  expect(prs).toEqual(
    await q(`SELECT DISTINCT r.test_pk, (r.at AT TIME ZONE 'UTC')::date::text AS day, u.pr_number
               FROM test_results r JOIN uploads u ON u.pk = r.upload_pk
              WHERE r.outcome = 'fail' AND NOT r.infra AND u.pr_number IS NOT NULL ORDER BY 1, 2, 3`),
  );
  expect(await q(`SELECT pk AS test_pk, last_failure_at FROM test_cases ORDER BY 1`)).toEqual(
    await q(`SELECT t.pk AS test_pk, max(r.at) FILTER (WHERE r.outcome = 'fail') AS last_failure_at
               FROM test_cases t JOIN test_results r ON r.test_pk = t.pk GROUP BY 1 ORDER BY 1`),
  );
  expect(await queued()).toEqual([]);
});
