/**
 * Retention under read load (issue 26's target: a day's partition of 1M results dropped while the
 * read load runs, no read over 60 ms attributable to it). A private PostgreSQL (or DATABASE_URL's
 * server), migrated; one repository of --tests tests; --old-results raw results on each of --days
 * days just past the default 90-day retention (a day partition each), --recent-results over the
 * last 3 days, day rollups of all. Reads through the store's own statements (list-failing-tests over
 * the last 3 days, page size 100, and get-test-details of random tests), paced, for --before
 * seconds; then the maintenance job runs --days times, 3 s apart, each run dropping one old day
 * (detached concurrently, then dropped) while the reads go on, and the reads go on for --after
 * seconds more. Prints the latency of the reads before, during a run of the job, between runs and
 * after: a read over 60 ms is attributable to the drop only if such reads are more frequent during
 * the runs than outside them.
 *
 *   npx tsx bench/flaky/retention-drop.ts [--days 3] [--old-results 1000000] [--tests 20000]
 *
 * The simulated now lies 200 days after the real one, so the old days have their own partitions (the
 * migration's legacy partition covers everything before the day after the real now).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPool } from '../../stores/db';
import { Supervisor } from '../../scripts/lib/supervisor';
import { createFlakyStore } from '../../flaky/service';
import { AHEAD_DAYS, maintainResults } from '../../flaky/store/result-maintenance';
import {
  dropResultPartition,
  ensureResultPartitions,
  listResultPartitions,
} from '../../flaky/store/result-partitions';
import { openDatabase } from './database';
import { ms, percentile, table } from './stats';

const { values: args } = parseArgs({
  options: {
    'old-results': { type: 'string', default: '1000000' },
    days: { type: 'string', default: '3' },
    'recent-results': { type: 'string', default: '300000' },
    tests: { type: 'string', default: '20000' },
    'list-rate': { type: 'string', default: '10' },
    'details-rate': { type: 'string', default: '20' },
    before: { type: 'string', default: '10' },
    after: { type: 'string', default: '5' },
  },
});

const DAY = 86_400_000;
const log = (line: string) => console.log(`[retention-drop] ${line}`);

interface Sample {
  readonly kind: 'list' | 'details';
  readonly start: number;
  readonly ms: number;
}

async function main(supervisor: Supervisor, tmp: string): Promise<void> {
  const database = await openDatabase(supervisor, tmp);
  log(database.description);
  const pool = createPool(database.url, { max: 8 });
  const tests = Number(args.tests);
  const oldResults = Number(args['old-results']);
  const recentResults = Number(args['recent-results']);
  const now = new Date(Math.floor(Date.now() / DAY) * DAY + 200 * DAY + 12 * 3_600_000);
  // The old days, oldest first: run i of the job (at now − (days − 1 − i) days) drops day i.
  const drops = Number(args.days);
  const oldDays = Array.from(
    { length: drops },
    (_, i) => new Date(Math.floor(now.getTime() / DAY) * DAY - (91 + drops - 1 - i) * DAY),
  );
  const oldDay = oldDays[0]!;
  try {
    const seeded = performance.now();
    await seed(pool, { tests, oldResults, recentResults, now, oldDays });
    log(`seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);
    const { rows: sizes } = await pool.query<{ size: string }>(
      `SELECT pg_size_pretty(pg_total_relation_size($1::regclass)) AS size`,
      [`test_results_p${oldDay.toISOString().slice(0, 10).replaceAll('-', '')}`],
    );
    log(
      `${drops} old days, each a partition of ${oldResults.toLocaleString('en-US')} results, ${sizes[0]!.size} with its indexes`,
    );

    // What else the job would do first, done before the measurement so that it times the one drop:
    // the partitions ahead, and the empty ones the migration made around the real date.
    await ensureResultPartitions(pool, new Date(now.getTime() - drops * DAY), AHEAD_DAYS + drops);
    for (const p of await listResultPartitions(pool))
      if (p.upper !== null && p.upper.getTime() <= oldDay.getTime())
        await dropResultPartition(pool, p, 5_000);

    const store = createFlakyStore(pool, { now: () => now });
    const { rows: org } = await pool.query<{ id: string }>(
      `SELECT id FROM organisations WHERE slug = 'bench'`,
    );
    const scope = { organisationId: org[0]!.id, key: { host: 'github.com', owner: 'bench', name: 'mono' } };
    const { rows: ids } = await pool.query<{ id: string }>(`SELECT id FROM test_cases ORDER BY pk`);
    const links = { repository: 'https://x/r', testPrefix: 'https://x/t/', ticketPrefix: 'https://x/k/' };
    const samples: Sample[] = [];
    const stop = { now: false };
    const paced = async (kind: Sample['kind'], perSecond: number, read: () => Promise<unknown>) => {
      const gap = 1000 / perSecond;
      let next = performance.now();
      const inFlight: Promise<void>[] = [];
      while (!stop.now) {
        const start = performance.now();
        inFlight.push(read().then(() => void samples.push({ kind, start, ms: performance.now() - start })));
        next += gap;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
      await Promise.all(inFlight);
    };
    const window = { from: new Date(now.getTime() - 3 * DAY), to: now };
    const readers = [
      paced('list', Number(args['list-rate']), () => store.listFailingTests(scope, window, 100, null, links)),
      paced('details', Number(args['details-rate']), () =>
        store.getTestJson(scope, ids[Math.floor(Math.random() * ids.length)]!.id, links),
      ),
    ];
    await sleep(Number(args.before) * 1000);
    // Each run of the job drops one old day; a pause between them (reads only) keeps them apart.
    // Run i first detaches and drops day i the way the job does (result-partitions.ts), timed on its
    // own ("drop"), then runs the whole job at that day ("job": partitions ahead, which exist, and
    // the rollups' daily trim, which deletes nothing here but probes every test's rollups).
    const windows: { kind: 'drop' | 'job'; start: number; end: number }[] = [];
    for (let i = 0; i < drops; i += 1) {
      if (i > 0) await sleep(3_000);
      const name = `test_results_p${oldDays[i]!.toISOString().slice(0, 10).replaceAll('-', '')}`;
      const partition = (await listResultPartitions(pool)).find((p) => p.name === name)!;
      const dropStart = performance.now();
      const outcome = await dropResultPartition(pool, partition, 500);
      windows.push({ kind: 'drop', start: dropStart, end: performance.now() });
      await sleep(1_000);
      const jobStart = performance.now();
      const summary = await maintainResults(pool, new Date(now.getTime() - (drops - 1 - i) * DAY), {
        defaults: { rawDays: 90, rollupDays: 400 },
      });
      windows.push({ kind: 'job', start: jobStart, end: performance.now() });
      log(
        `day ${i + 1}: ${name} ${outcome.kind} in ${(windows[windows.length - 2]!.end - dropStart).toFixed(0)} ms; the rest of the job ${(performance.now() - jobStart).toFixed(0)} ms (dropped ${summary.partitionsDropped.length}, rollup rows deleted ${summary.rollupsDeleted})`,
      );
    }
    const first = windows[0]!.start;
    const last = windows[windows.length - 1]!.end;
    await sleep(Number(args.after) * 1000);
    stop.now = true;
    await Promise.all(readers);

    // A read overlapping a drop is "drop", one overlapping the rest of the job "job"; the others are
    // before, between or after the runs.
    const phase = (s: Sample) =>
      windows.find((w) => s.start < w.end && s.start + s.ms > w.start)?.kind ??
      (s.start + s.ms < first ? 'before' : s.start > last ? 'after' : 'between');
    const rows = (['before', 'drop', 'job', 'between', 'after'] as const).flatMap((p) =>
      (['list', 'details'] as const).map((kind) => {
        const sorted = samples
          .filter((s) => s.kind === kind && phase(s) === p)
          .map((s) => s.ms)
          .sort((a, b) => a - b);
        return [
          p,
          kind,
          String(sorted.length),
          ms(percentile(sorted, 50)),
          ms(percentile(sorted, 99)),
          ms(sorted[sorted.length - 1] ?? NaN),
          String(sorted.filter((v) => v > 60).length),
        ];
      }),
    );
    console.log(table(['phase', 'read', 'n', 'p50', 'p99', 'max', '> 60 ms'], rows));
  } finally {
    await pool.end();
  }
}

async function seed(
  pool: ReturnType<typeof createPool>,
  o: { tests: number; oldResults: number; recentResults: number; now: Date; oldDays: readonly Date[] },
): Promise<void> {
  await pool.query(`INSERT INTO organisations (slug) VALUES ('bench')`);
  await pool.query(
    `INSERT INTO repositories (organisation_id, host, owner, name)
     SELECT id, 'github.com', 'bench', 'mono' FROM organisations WHERE slug = 'bench'`,
  );
  await pool.query(
    `INSERT INTO test_cases (organisation_id, id, repository_pk, classname, name, status_at, classified_at)
     SELECT r.organisation_id, gen_random_uuid(), r.pk, 'bench.Suite', 'test_' || i, $2, $2
     FROM repositories r, generate_series(1, $1::int) AS i`,
    [o.tests, o.now],
  );
  // Uploads of 1,000 results each, spread over their day (the trigger makes each day's partition).
  const days = [...o.oldDays, ...[1, 2, 3].map((d) => new Date(o.now.getTime() - d * DAY))];
  const perDay = [
    ...o.oldDays.map(() => o.oldResults),
    ...[1, 2, 3].map(() => Math.floor(o.recentResults / 3)),
  ];
  for (const [i, day] of days.entries()) {
    const uploads = Math.max(1, Math.ceil(perDay[i]! / 1000));
    await pool.query(
      `INSERT INTO uploads (repository_pk, upload_id, commit_sha, branch, pr_number, content_digest, files, tests,
         results, failures, skipped, infra, received_at)
       SELECT r.pk, $2 || '-' || u, md5(u::text), 'main', CASE WHEN u % 3 = 0 THEN u END, 'd', '[]', 1000, 1000, 20,
              0, false, $3::timestamptz + (u * interval '1 second') * (86000 / $1::int)
       FROM repositories r, generate_series(1, $1::int) AS u`,
      [uploads, `day${i}`, dayStart(day)],
    );
    await pool.query(
      `INSERT INTO test_results (upload_pk, test_pk, repository_pk, at, attempt, outcome, infra, duration_ms, fingerprint)
       SELECT u.pk, t.first + (g % $3::int), u.repository_pk, u.received_at, 1,
              CASE WHEN g % 50 = 0 THEN 'fail' ELSE 'pass' END, false, 10,
              CASE WHEN g % 50 = 0 THEN 'fp' || (g % 7) END
       FROM generate_series(0, $1::int - 1) AS g
       JOIN uploads u ON u.upload_id = $2 || '-' || (g / 1000 + 1)
       CROSS JOIN (SELECT min(pk) AS first FROM test_cases) t`,
      [perDay[i], `day${i}`, o.tests],
    );
  }
  await pool.query(
    `INSERT INTO test_day_rollups (test_pk, day, repository_pk, attempts, failures, infra_attempts, infra_failures,
       last_failure_at)
     SELECT test_pk, (at AT TIME ZONE 'UTC')::date, repository_pk, count(*), count(*) FILTER (WHERE outcome = 'fail'),
            0, 0, max(at) FILTER (WHERE outcome = 'fail')
     FROM test_results GROUP BY 1, 2, 3`,
  );
  await pool.query('VACUUM ANALYZE');
}

const dayStart = (at: Date) => new Date(Math.floor(at.getTime() / DAY) * DAY);
const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

const supervisor = new Supervisor(log);
const tmp = mkdtempSync(join(tmpdir(), 'railyard-retention-bench-'));
chmodSync(tmp, 0o755);
const finish = async (code: number) => {
  await supervisor.stopAll(20_000);
  rmSync(tmp, { recursive: true, force: true });
  process.exit(code);
};
process.on('SIGINT', () => void finish(130));
process.on('SIGTERM', () => void finish(143));
main(supervisor, tmp).then(
  () => finish(0),
  async (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await finish(1);
  },
);
