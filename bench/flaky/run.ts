/**
 * `npx tsx bench/flaky/run.ts [--results N] [--tests N] …`: the flaky-test service benchmark.
 *
 * 1. Generates a seeded world (world.ts) and loads `--results` results through the real ingestion
 *    path: multipart HTTP uploads to the real app in its own process (server.ts), 4 at a time.
 * 2. Baseline: a plain psql COPY of the same rows into a table with the same definition and indexes.
 * 3. Reads under concurrent load (list-failing-tests first/middle/last page, get-test-details), next to
 *    the plain indexed query each boils down to, run with psql.
 * 4. The same reads at the documented rates while uploads run at `--live-pace` results/s (0: skipped).
 * Prints progress to stderr and a summary table to stdout; `--out file.json` also saves the numbers.
 * Uses DATABASE_URL's server when set, else starts a private PostgreSQL in a temp dir.
 */
import { fork } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_FOLD_CONCURRENCY } from '../../flaky/fold';
import { createPool } from '../../stores/db';
import { apiUrl } from '../../platform/public-url';
import { createApiKeyStore } from '../../stores/api-keys';
import { Supervisor } from '../../scripts/lib/supervisor';
import { copyBaseline, type CopyResult } from './copy-phase';
import { processCpu, selfCpu, treeCpu } from './cpu';
import { openDatabase } from './database';
import { ingest } from './ingest-phase';
import { readsWhileUploading, liveSummary } from './live-phase';
import { reads } from './read-phase';
import { ms, rate, summarise, table } from './stats';
import { buildWorld } from './world';

const { values: args } = parseArgs({
  options: {
    results: { type: 'string', default: '10000000' },
    tests: { type: 'string', default: '100000' },
    repos: { type: 'string', default: '5' },
    'shard-size': { type: 'string', default: '2500' },
    days: { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '4' },
    'read-concurrency': { type: 'string', default: '8' },
    'read-requests': { type: 'string', default: '2000' },
    seed: { type: 'string', default: '42' },
    'skip-copy': { type: 'boolean', default: false },
    // Results per second the uploads are sent at (open loop); unpaced by default.
    pace: { type: 'string' },
    // Fold only after the load (the acknowledgement's cost alone, then the fold's own throughput).
    'fold-after-load': { type: 'boolean', default: false },
    // Phase 4: reads at 50 and 100 req/s while uploads run at this many results/s (0 skips it).
    'live-pace': { type: 'string', default: '20000' },
    'live-read-requests': { type: 'string', default: '1000' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const num = (name: keyof typeof args) => Number(args[name]);
const END = new Date('2026-11-20T12:00:00.000Z');
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(supervisor: Supervisor, tmp: string): Promise<void> {
  const database = await openDatabase(supervisor, tmp);
  log(`database: ${database.description}`);
  const pool = createPool(database.url, { max: 4, applicationName: 'railyard-bench' });
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql, values)).rows as T[];
  const { key } = await createApiKeyStore(pool).create('bench');
  const server = await startServer(database.url);
  log(
    `API: JUnit parsed on ${server.parserThreads === 0 ? 'the event loop' : `${server.parserThreads} worker thread(s)`}`,
  );
  try {
    const world = buildWorld({
      tests: num('tests'),
      repos: num('repos'),
      shardSize: num('shard-size'),
      seed: num('seed'),
    });
    log(
      `world: ${num('tests')} tests in ${num('repos')} repositories, shards of ${num('shard-size')}; loading ${num('results').toLocaleString('en-US')} results`,
    );
    const cpuBefore = cpuNow(server.pid, database.postmasterPid);
    const loaded = await ingest({
      baseUrl: server.baseUrl,
      key,
      world,
      targetResults: num('results'),
      concurrency: num('concurrency'),
      days: num('days'),
      end: END,
      seed: num('seed'),
      setClock: server.setClock,
      log,
      ...(args.pace === undefined ? {} : { pace: Number(args.pace) }),
    });
    // Acknowledged is not folded (ADR 0018): wait for the fold loop to catch up, and keep its lags.
    const fold = await server.fold();
    const foldLag = summarise(fold.lags.map((s) => s * 1000));
    log(
      `fold: ${fold.lags.length} uploads folded, lag p50 ${ms(foldLag.p50)}, p99 ${ms(foldLag.p99)}; ` +
        `drained ${fold.drainSeconds.toFixed(1)} s after the last acknowledgement`,
    );
    const cpu = cpuDelta(cpuBefore, cpuNow(server.pid, database.postmasterPid), loaded.results);
    const untilFolded = loaded.results / (loaded.seconds + fold.drainSeconds);
    log(
      `ingest: ${loaded.results.toLocaleString('en-US')} results in ${loaded.seconds.toFixed(0)} s (${rate(loaded.perSecond)})`,
    );
    const vacuumStarted = performance.now();
    await pool.query('VACUUM ANALYZE');
    const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    const sizes = await query<{ name: string; size: string; rows: string }>(
      `SELECT c.relname AS name, pg_size_pretty(pg_total_relation_size(c.oid)) AS size, c.reltuples::bigint AS rows
       FROM pg_class c WHERE c.relname IN ('test_results', 'test_day_rollups', 'test_failure_fingerprints', 'test_cases', 'test_pr_failures', 'test_status_history')
       ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    const statuses = await query<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM test_cases GROUP BY status ORDER BY status`,
    );
    let copy: CopyResult | undefined;
    if (!args['skip-copy']) {
      log('copy: exporting the same rows and loading them with psql \\copy...');
      copy = await copyBaseline(database.url, tmp);
      log(
        `copy: ${copy.rows.toLocaleString('en-US')} rows in ${copy.seconds.toFixed(1)} s (${rate(copy.perSecond)})`,
      );
    }
    await server.setClock(END);
    const readOptions = {
      baseUrl: server.baseUrl,
      databaseUrl: database.url,
      key,
      repo: world[0]!.name,
      concurrency: num('read-concurrency'),
      requests: num('read-requests'),
      tmp,
      log,
      query,
      apiCpu: () => processCpu(server.pid),
      ...(database.postmasterPid === undefined ? {} : { dbCpu: () => treeCpu(database.postmasterPid!) }),
    };
    const read = await reads({ ...readOptions, end: END });
    const livePace = num('live-pace');
    const live =
      livePace > 0
        ? await readsWhileUploading({
            ingest: {
              baseUrl: server.baseUrl,
              key,
              world,
              concurrency: num('concurrency'),
              seed: num('seed') + 1,
              setClock: server.setClock,
              log,
            },
            read: { ...readOptions, requests: num('live-read-requests') },
            end: END,
            pace: livePace,
            warmupSeconds: 10,
          })
        : undefined;
    const liveFoldLag =
      live === undefined ? undefined : summarise((await server.fold()).lags.map((s) => s * 1000));

    const ingestRows = [
      [
        'railyard upload (multipart HTTP → parse → store)',
        loaded.results.toLocaleString('en-US'),
        `${loaded.seconds.toFixed(1)} s`,
        rate(loaded.perSecond),
        `ack p50 ${ms(loaded.ack.p50)}, p99 ${ms(loaded.ack.p99)}${args.pace === undefined ? '' : `, paced at ${rate(Number(args.pace))}`}`,
      ],
      [
        'the same, until folded (rollups, classification)',
        loaded.results.toLocaleString('en-US'),
        `${(loaded.seconds + fold.drainSeconds).toFixed(1)} s`,
        rate(untilFolded),
        args['fold-after-load']
          ? `folded after the load: ${rate(loaded.results / fold.drainSeconds)} alone`
          : `fold lag p50 ${ms(foldLag.p50)}, p99 ${ms(foldLag.p99)} (${foldLag.n} uploads)`,
      ],
      ...(copy
        ? [
            [
              'psql \\copy of the same rows (same table definition)',
              copy.rows.toLocaleString('en-US'),
              `${copy.seconds.toFixed(1)} s`,
              rate(copy.perSecond),
              `ratio upload/copy ${(loaded.perSecond / copy.perSecond).toFixed(3)}`,
            ],
          ]
        : []),
    ];
    const readRows = read.rows.map((r) => [
      r.endpoint,
      r.load,
      ms(r.api.p50),
      ms(r.api.p99),
      ms(r.cpuMs),
      r.dbCpuMs === undefined ? 'n/a' : ms(r.dbCpuMs),
      ms(r.baseline.p50),
      ms(r.baseline.p99),
      `${(r.api.p99 / r.baseline.p99).toFixed(1)}×`,
    ]);
    const summary = [
      `\n## Flaky-test benchmark: ${loaded.results.toLocaleString('en-US')} results, ${num('tests').toLocaleString('en-US')} tests, seed ${num('seed')}`,
      `database: ${database.description}; VACUUM ANALYZE after load: ${vacuumSeconds.toFixed(1)} s`,
      `API: JUnit parsed on ${server.parserThreads === 0 ? 'the event loop' : `${server.parserThreads} worker thread(s)`} (RAILYARD_PARSER_THREADS); ` +
        `folded in ${process.env.RAILYARD_FOLD_CONCURRENCY || DEFAULT_FOLD_CONCURRENCY} lane(s) (RAILYARD_FOLD_CONCURRENCY)`,
      `CPU per 1,000 results during ingestion: API ${cpu.api}, PostgreSQL ${cpu.postgres}, load generator ${cpu.client}; ` +
        `load average at the end ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`,
      `statuses: ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; sizes: ${sizes.map((s) => `${s.name} ${s.size}`).join(', ')}`,
      '',
      table(['ingestion', 'results', 'time', 'results/s', 'notes'], ingestRows),
      '',
      `list-failing-tests: 7-day range, page size 100, ${read.failing} failing tests (${read.pages} pages)`,
      table(
        [
          'read',
          'load',
          'API p50',
          'API p99',
          'API CPU/req',
          'PG CPU/req',
          'psql p50',
          'psql p99',
          'p99 ratio',
        ],
        readRows,
      ),
      ...(live === undefined ? [] : ['', liveSummary(live, livePace, liveFoldLag!)]),
      '',
      `targets: ingestion ≥ 20,000 results/s: ${loaded.perSecond >= 20_000 ? 'met' : 'MISSED'}; ` +
        (copy
          ? `ingestion ≥ 0.40 of \\copy: ${loaded.perSecond / copy.perSecond >= 0.4 ? 'met' : 'MISSED'}; `
          : '') +
        (args['fold-after-load']
          ? 'fold lag: not measured (--fold-after-load); '
          : `fold lag p99 < 10 s: ${foldLag.p99 < 10_000 ? 'met' : 'MISSED'} (at ${rate(loaded.perSecond)}); `) +
        `list-failing-tests p99 < 60 ms at 50 req/s: ${verdict(read.rows, 'list', 60)}; ` +
        `get-test-details p99 < 40 ms at 100 req/s: ${verdict(read.rows, 'get-test-details', 40)}` +
        (live === undefined
          ? ''
          : `; the same while uploads run at ${rate(livePace)}: list ${verdict(live.rows, 'list', 60)}, ` +
            `details ${verdict(live.rows, 'get-test-details', 40)}` +
            (live.perSecondDuringReads >= 0.95 * livePace
              ? ''
              : ` (uploads reached only ${rate(live.perSecondDuringReads)}: not the target's load)`)),
    ].join('\n');
    console.log(summary);
    if (args.out)
      writeFileSync(
        args.out,
        JSON.stringify(
          {
            args,
            database: database.description,
            parserThreads: server.parserThreads,
            loaded,
            fold: { lag: foldLag, drainSeconds: fold.drainSeconds, untilFolded },
            cpu,
            copy,
            read,
            live: live === undefined ? undefined : { ...live, pace: livePace, foldLag: liveFoldLag },
            sizes,
            statuses,
            vacuumSeconds,
          },
          null,
          2,
        ),
      );
  } finally {
    await server.stop();
    await pool.end();
  }
}

function verdict(
  rows: readonly { endpoint: string; load: string; api: { p99: number } }[],
  prefix: string,
  limit: number,
) {
  const paced = rows.filter((r) => r.endpoint.startsWith(prefix) && /^\d+ req\/s/.test(r.load));
  return paced.every((r) => r.api.p99 < limit) ? 'met' : 'MISSED';
}

interface CpuSample {
  readonly api: number;
  readonly postgres: number | undefined;
  readonly client: number;
}

function cpuNow(apiPid: number, postmasterPid: number | undefined): CpuSample {
  return {
    api: processCpu(apiPid),
    postgres: postmasterPid === undefined ? undefined : treeCpu(postmasterPid),
    client: selfCpu(),
  };
}

function cpuDelta(before: CpuSample, after: CpuSample, results: number) {
  const per = (seconds: number) => `${((seconds * 1e6) / results).toFixed(0)} ms`;
  return {
    api: per(after.api - before.api),
    postgres:
      after.postgres === undefined || before.postgres === undefined
        ? 'n/a (shared server)'
        : per(after.postgres - before.postgres),
    client: per(after.client - before.client),
  };
}

interface BenchServer {
  readonly pid: number;
  readonly parserThreads: number;
  readonly baseUrl: string;
  setClock(at: Date): Promise<void>;
  /** Waits until every acknowledged upload is folded; the fold lags (s) since the last call. */
  fold(): Promise<{ lags: number[]; drainSeconds: number }>;
  stop(): Promise<void>;
}

async function startServer(databaseUrl: string): Promise<BenchServer> {
  const child = fork(join(__dirname, 'server.ts'), [], {
    // BENCH_API_CPU_PROF=<dir> writes a V8 CPU profile of the API process there (where its time goes).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_API_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_CPU_PROF}`]
        : []),
    ],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BENCH_PORT: '0',
      BENCH_SECRET: 'bench-page-token-secret-0123456789',
      ...(args['fold-after-load'] ? { BENCH_FOLD_DEFERRED: '1' } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: (() => void)[] = [];
  const folding: ((answer: { lags: number[]; drainSeconds: number }) => void)[] = [];
  const ready = await new Promise<{ port: number; parserThreads: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench API exited with ${code}`)));
    child.on(
      'message',
      (message: {
        type: string;
        port?: number;
        parserThreads?: number;
        lags?: number[];
        drainSeconds?: number;
      }) => {
        if (message.type === 'ready')
          resolve({ port: message.port!, parserThreads: message.parserThreads ?? 0 });
        if (message.type === 'clock') waiting.shift()?.();
        if (message.type === 'fold')
          folding.shift()?.({ lags: message.lags ?? [], drainSeconds: message.drainSeconds ?? 0 });
      },
    );
  });
  return {
    pid: child.pid!,
    parserThreads: ready.parserThreads,
    baseUrl: apiUrl({ port: ready.port }),
    setClock: (at) =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        child.send({ type: 'clock', at: at.getTime() });
      }),
    fold: () =>
      new Promise((resolve) => {
        folding.push(resolve);
        child.send({ type: 'fold' });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ type: 'stop' });
      }),
  };
}

const supervisor = new Supervisor(log);
const tmp = mkdtempSync(join(tmpdir(), 'railyard-flaky-bench-'));
chmodSync(tmp, 0o755);
const finish = async (code: number) => {
  await supervisor.stopAll(20_000);
  if (!args.keep) rmSync(tmp, { recursive: true, force: true });
  else log(`kept ${tmp}`);
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
