/**
 * Day partitions and retention on the real database (migration 0026, ADR 0019): partitions made
 * ahead, an upload on a day without one still stored, an old partition dropped (DETACH CONCURRENTLY,
 * then DROP) while reads and uploads run, a detach that could not finish (a transaction still saw the
 * partition) finished by the next run, one organisation's shorter retention deleting only its own old
 * rows, the rollups outliving the raw rows, and bad settings refused naming the field.
 *
 * Each test has its own database and its own far-future days, so the days of one never meet the
 * partitions the migration made around the real date.
 */
import type { Pool } from 'pg';
import { type RetentionDefaults } from '../../../flaky/retention';
import { updateOrganisationRetention } from '../../../flaky/store/organisation-retention';
import { AHEAD_DAYS, maintainResults } from '../../../flaky/store/result-maintenance';
import { listResultPartitions } from '../../../flaky/store/result-partitions';
import { run as orgsCommand } from '../../../scripts/orgs';
import { createHarness, type Harness, junit, REPO } from './harness';

const DAY = 86_400_000;
const DEFAULTS: RetentionDefaults = { rawDays: 90, rollupDays: 400 };
const GLOBEX_REPO = { host: 'github.com', owner: 'globex', name: 'app' };

const partitionNames = async (pool: Pool) => (await listResultPartitions(pool)).map((p) => p.name);
const partitionOf = (at: Date) => `test_results_p${at.toISOString().slice(0, 10).replaceAll('-', '')}`;

async function countRows(pool: Pool, sql: string, values: unknown[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(sql, values);
  return rows[0]!.n;
}

/** Raw rows and day-rollup rows of one organisation's tests on one UTC day. */
async function dayCounts(pool: Pool, slug: string, day: Date) {
  const from = new Date(Math.floor(day.getTime() / DAY) * DAY);
  const args = [slug, from, new Date(from.getTime() + DAY)];
  const scope = `JOIN test_cases t ON t.pk = x.test_pk JOIN organisations o ON o.id = t.organisation_id
    WHERE o.slug = $1`;
  return {
    results: await countRows(
      pool,
      `SELECT count(*)::int AS n FROM test_results x ${scope} AND x.at >= $2 AND x.at < $3`,
      args,
    ),
    rollups: await countRows(
      pool,
      `SELECT count(*)::int AS n FROM test_day_rollups x ${scope} AND x.day >= $2::date AND x.day < $3::date`,
      args,
    ),
  };
}

/** Four raw rows (Kept: fail, pass, fail; Other: pass) and two day rollups. */
async function upload(h: Harness, id: string, org: 'acme' | 'globex', outcomes = 'FPF'): Promise<void> {
  const res = await h.uploadJson(
    {
      upload_id: id,
      commit_sha: `sha-${id}`,
      org_url_slug: org,
      ...(org === 'globex' ? { repo: GLOBEX_REPO } : {}),
    },
    [{ name: 'j.xml', content: junit({ Kept: outcomes, Other: 'P' }) }],
    org === 'acme' ? h.key : h.otherKey,
  );
  expect([res.statusCode, res.body]).toEqual([200, expect.any(String)]);
}

describe('partitions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('flaky_partitions', new Date('2031-03-10T08:00:00Z'));
  });
  afterAll(() => h.close());

  test('an upload on a day without a partition is stored, in a partition made for its day', async () => {
    expect(await partitionNames(h.pool)).not.toContain('test_results_p20310310');
    await upload(h, 'no-partition', 'acme');
    expect(await partitionNames(h.pool)).toContain('test_results_p20310310');
    expect(await countRows(h.pool, 'SELECT count(*)::int AS n FROM test_results_p20310310', [])).toBe(4);
  });

  test('the maintenance makes the partitions of the next two weeks, once', async () => {
    const first = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS });
    const days = Array.from({ length: AHEAD_DAYS }, (_, d) =>
      partitionOf(new Date(h.clock.now.getTime() + d * DAY)),
    );
    // Today's was made by the upload above.
    expect(first.partitionsMade).toEqual(days.slice(1));
    // The migration's partitions, made around the real date years before the clock here, are past.
    expect(first.partitionsDropped).toContain('test_results_legacy');
    expect(await partitionNames(h.pool)).toEqual(expect.arrayContaining(days));
    const again = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS });
    expect(again.partitionsMade).toEqual([]);
  });

  test('a partition past every retention is dropped while reads and uploads run, its rollups stay', async () => {
    const day0 = h.clock.now;
    h.tick(91 * DAY);
    const stop = { now: false };
    const failures: string[] = [];
    const done = { reads: 0, uploads: 0 };
    // A read of the raw rows across every partition, and the API's reads and uploads, in a loop.
    const reader = (async () => {
      for (let i = 0; !stop.now; i += 1) {
        await h.pool.query('SELECT count(*) FROM test_results WHERE test_pk > 0');
        const res = await h.post('/v1/flaky-tests/list-failing-tests', {
          repo: REPO,
          org_url_slug: 'acme',
          start_time: new Date(h.clock.now.getTime() - 3 * DAY).toISOString(),
          end_time: h.clock.now.toISOString(),
          page_query: { page_size: 10 },
        });
        if (res.statusCode !== 200) failures.push(`read ${res.statusCode} ${res.body}`);
        done.reads += 1;
      }
    })();
    const uploader = (async () => {
      for (let i = 0; !stop.now; i += 1) {
        const res = await h.uploadJson({ upload_id: `during-${i}`, commit_sha: `during-${i}` }, [
          { name: 'j.xml', content: junit({ During: i % 2 === 0 ? 'F' : 'P' }) },
        ]);
        if (res.statusCode !== 200) failures.push(`upload ${res.statusCode} ${res.body}`);
        done.uploads += 1;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A generous lock_timeout: this test is about the others not waiting (the next one gives up).
    const before = { ...done };
    const summary = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS, lockTimeoutMs: 10_000 });
    const during = { reads: done.reads - before.reads, uploads: done.uploads - before.uploads };
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop.now = true;
    await Promise.all([reader, uploader]);

    expect(failures).toEqual([]);
    // Reads and uploads completed while the maintenance ran, not only before and after it.
    expect(during.reads).toBeGreaterThan(0);
    expect(during.uploads).toBeGreaterThan(0);
    expect(summary.partitionsDropped).toContain(partitionOf(day0));
    expect(summary.partitionsLeft).toEqual([]);
    expect(await partitionNames(h.pool)).not.toContain(partitionOf(day0));
    expect(await dayCounts(h.pool, 'acme', day0)).toEqual({ results: 0, rollups: 2 });
    // The uploads during the drop were all stored.
    expect(
      await countRows(h.pool, `SELECT count(*)::int AS n FROM uploads WHERE upload_id LIKE 'during-%'`, []),
    ).toBeGreaterThan(0);
  }, 60_000);

  test('a detach that waited too long for a reader is left pending and finished by the next run', async () => {
    const day = h.clock.now;
    await upload(h, 'pending-day', 'acme');
    h.tick(91 * DAY);
    // A transaction that read the partition keeps it in use: the detach waits for it, then gives up.
    const reader = await h.pool.connect();
    let pending: string | undefined;
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM test_results WHERE at >= $1`, [new Date(day.getTime() - DAY)]);
      const blocked = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS, lockTimeoutMs: 200 });
      // The first detach waited for the open transaction and gave up halfway; the rest wait their turn.
      expect(blocked.partitionsDropped).toEqual([]);
      expect(blocked.partitionsLeft).toContain(partitionOf(day));
      const pendingNow = (await listResultPartitions(h.pool)).filter((p) => p.detachPending);
      expect(pendingNow).toHaveLength(1);
      pending = pendingNow[0]!.name;
      // Reads and uploads go on meanwhile.
      await upload(h, 'while-pending', 'acme');
      const res = await h.post('/v1/flaky-tests/get-test-details', {
        repo: REPO,
        org_url_slug: 'acme',
        test_id: (await h.pool.query<{ id: string }>(`SELECT id FROM test_cases WHERE name = 'Kept'`))
          .rows[0]!.id,
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await reader.query('COMMIT');
      reader.release();
    }
    const next = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS, lockTimeoutMs: 10_000 });
    expect(next.partitionsDropped).toEqual(expect.arrayContaining([partitionOf(day)]));
    expect(next.partitionsDropped[0]).toBe(pending);
    expect(next.partitionsLeft).toEqual([]);
    expect(await partitionNames(h.pool)).not.toContain(partitionOf(day));
  }, 60_000);
});

describe('retention per organisation', () => {
  let h: Harness;
  const day0 = new Date('2032-05-01T10:00:00Z');
  beforeAll(async () => {
    h = await createHarness('flaky_retention', day0);
  });
  afterAll(() => h.close());

  test('a shorter retention deletes only that organisation’s old rows, in batches; the rollups stay', async () => {
    await upload(h, 'a-0', 'acme');
    await upload(h, 'g-0', 'globex');
    h.tick(30 * DAY);
    await upload(h, 'a-30', 'acme');
    await upload(h, 'g-30', 'globex');
    h.tick(30 * DAY);
    // acme keeps 8 days: raised to its classification's 44 days + 1, so day 30 (30 days old) stays.
    await updateOrganisationRetention(h.pool, 'acme', { rawDays: 8 }, DEFAULTS, 'test', h.clock.now);

    const summary = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS, batchSize: 2 });
    expect(summary.resultsDeleted).toBe(4);
    expect(summary.partitionsDropped).not.toContain(partitionOf(day0));
    expect(await dayCounts(h.pool, 'acme', day0)).toEqual({ results: 0, rollups: 2 });
    expect(await dayCounts(h.pool, 'globex', day0)).toEqual({ results: 4, rollups: 2 });
    const day30 = new Date(day0.getTime() + 30 * DAY);
    expect(await dayCounts(h.pool, 'acme', day30)).toEqual({ results: 4, rollups: 2 });

    // A second run has nothing left to do there.
    expect((await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS })).resultsDeleted).toBe(0);

    // Past globex's 90 days the partition goes; acme's rollups go at its own 91 days, globex's stay.
    await updateOrganisationRetention(h.pool, 'acme', { rollupDays: 91 }, DEFAULTS, 'test', h.clock.now);
    h.tick(35 * DAY);
    const later = await maintainResults(h.pool, h.clock.now, { defaults: DEFAULTS });
    expect(later.partitionsDropped).toContain(partitionOf(day0));
    expect(later.rollupsDeleted).toBeGreaterThan(0);
    expect(await dayCounts(h.pool, 'acme', day0)).toEqual({ results: 0, rollups: 0 });
    expect(await dayCounts(h.pool, 'globex', day0)).toEqual({ results: 0, rollups: 2 });
    const fingerprints = await countRows(
      h.pool,
      `SELECT count(*)::int AS n FROM test_failure_fingerprints f JOIN test_cases t ON t.pk = f.test_pk
       JOIN organisations o ON o.id = t.organisation_id WHERE o.slug = $1 AND f.day = $2::date`,
      ['acme', day0.toISOString().slice(0, 10)],
    );
    expect(fingerprints).toBe(0);
  }, 60_000);

  test('bad settings are refused with a sentence naming the field, and nothing is stored', async () => {
    const set = (change: { rawDays?: number | null; rollupDays?: number | null }) =>
      updateOrganisationRetention(h.pool, 'globex', change, DEFAULTS, 'test', h.clock.now);
    await expect(set({ rawDays: 7 })).rejects.toThrow("Field 'raw_retention_days' must be at least 8 days.");
    await expect(set({ rawDays: 401 })).rejects.toThrow(
      "Field 'raw_retention_days' must be at most 400 days.",
    );
    await expect(set({ rawDays: 30.5 })).rejects.toThrow(
      "Field 'raw_retention_days' must be a whole number of days.",
    );
    await expect(set({ rollupDays: 90 })).rejects.toThrow(
      "Field 'rollup_retention_days' must be at least 91 days.",
    );
    await expect(set({ rawDays: 300, rollupDays: 200 })).rejects.toThrow(
      "Field 'rollup_retention_days' must be at least raw_retention_days (300 days)",
    );
    const { rows } = await h.pool.query(
      `SELECT raw_retention_days, rollup_retention_days FROM organisations WHERE slug = 'globex'`,
    );
    expect(rows[0]).toEqual({ raw_retention_days: null, rollup_retention_days: null });

    // The operator command: the same sentences, and `default` puts a field back.
    await expect(
      orgsCommand(h.pool, 'retention', { org: 'globex', 'raw-retention-days': 'ten' }),
    ).rejects.toThrow("Field 'raw_retention_days' must be a whole number of days.");
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await orgsCommand(h.pool, 'retention', { org: 'globex', 'raw-retention-days': '120' })).toBe(0);
      expect(await orgsCommand(h.pool, 'retention', { org: 'globex', 'raw-retention-days': 'default' })).toBe(
        0,
      );
      expect(log.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringContaining('raw results: 120 days'),
        expect.stringContaining('raw results: 90 days (the default)'),
      ]);
    } finally {
      log.mockRestore();
    }
  });
});
