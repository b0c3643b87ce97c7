/**
 * `npm run bench:capacity`: what one merged PR and one uploaded test result cost the whole stack, on a
 * private stack this script starts (PostgreSQL, the Temporal dev server with its metrics endpoint, the
 * API, a worker and an executor; scripts/lib/stack.ts), driven only through the real HTTP API and the
 * local git host. Phases, each measured between two snapshots (snapshot.ts):
 *
 * 1. baseline: the stack idle with no queue for `--idle-s` (its fixed cost);
 * 2. create `--queues` queues (one repository each);
 * 3. idle: every queue idle for `--idle-s` (less the baseline: the standing cost of a queue);
 * 4. merge: the first `--active` queues each get `--prs` PRs, one in `--fail-every` failing;
 * 5. upload: `--uploads` JUnit files of `--tests` results through the upload route.
 *
 * The defaults (200 queues, 20 active, 6 PRs each, 200 uploads of 200 results) finish in about 10
 * minutes on 2 shared cores; the 1,000 queues with 100 active is `--queues 1000 --active 100`.
 *
 * Progress goes to stderr; the summary tables to stdout; `--json <file>` writes every figure
 * with the per-unit figures and the capacity plan (plan.ts) that docs/deployment.md prints. Not part of
 * `npm test`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { createPool } from '../../stores/db';
import { createApiKeyStore } from '../../stores/api-keys';
import { freePort } from '../../scripts/lib/ports';
import { startStack, type Stack } from '../../scripts/lib/stack';
import { Supervisor } from '../../scripts/lib/supervisor';
import { startDevServer } from '../../scripts/lib/temporal';
import { createClient } from './http';
import { countHistories, historyDelta } from './histories';
import { sampleWorkerRss } from './processes';
import { createQueues, queueRef, runQueueLoad } from './queues';
import { derive, formatReport, summarise, type CapacityReport } from './report';
import { phaseCost, snapshot } from './snapshot';
import { runUploadLoad } from './uploads';

const { values } = parseArgs({
  options: {
    queues: { type: 'string', default: '200' },
    active: { type: 'string', default: '20' },
    prs: { type: 'string', default: '6' },
    'fail-every': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '2' },
    'gap-ms': { type: 'string', default: '500' },
    'idle-s': { type: 'string', default: '60' },
    uploads: { type: 'string', default: '200' },
    tests: { type: 'string', default: '200' },
    'upload-concurrency': { type: 'string', default: '4' },
    'timeout-s': { type: 'string', default: '900' },
    json: { type: 'string' },
  },
});

const num = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`bench:capacity: --${name} must be a whole number of at least 0`);
    process.exit(2);
  }
  return value;
};

const started = Date.now();
const log = (m: string) =>
  console.error(`[capacity ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`);

async function main(): Promise<void> {
  const opts = {
    queues: num('queues'),
    active: Math.min(num('active'), num('queues')),
    prsPerQueue: num('prs'),
    failEvery: num('fail-every'),
    concurrency: Math.max(1, num('concurrency')),
    submitGapMs: num('gap-ms'),
    timeoutMs: num('timeout-s') * 1000,
    log,
  };
  if (opts.queues < 1) throw new Error('--queues must be at least 1 (uploads go to the first repository)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-capacity-'));
  fs.chmodSync(dir, 0o755);
  const sup = new Supervisor(log);
  let stack: Stack | null = null;
  const stopAll = async () => {
    await stack?.stop();
    await sup.stopAll(5_000);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stopAll().then(() => process.exit(130)));
  try {
    const [temporalPort, metricsPort] = [await freePort(), await freePort()];
    const temporalDb = path.join(dir, 'temporal.db');
    log('starting the Temporal dev server (SQLite file, metrics endpoint)...');
    await startDevServer(sup, {
      port: temporalPort,
      namespace: 'default',
      dbFile: temporalDb,
      logFile: path.join(dir, 'temporal.log'),
      metricsPort,
    });
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    stack = await startStack({
      dir,
      temporalAddress,
      log,
      env: {
        // One organisation holds every queue: the per-organisation caps must not be what is measured.
        RAILYARD_MAX_REPOSITORIES_PER_ORGANISATION: String(opts.queues + 10),
        RAILYARD_MAX_QUEUES_PER_ORGANISATION: String(opts.queues + 10),
        RAILYARD_ORG_REQUESTS_PER_SECOND: '100000',
        RAILYARD_EXECUTOR_RUNS_PER_ORGANISATION: '1000',
      },
    });
    const pool = createPool(stack.databaseUrl, { max: 2 });
    const { key } = await createApiKeyStore(pool).create('capacity', 'bench:capacity');
    const client = createClient(stack.apiUrl, key);
    const connection = await Connection.connect({ address: temporalAddress });
    const temporal = new TemporalClient({ connection });
    const snap = () => snapshot({ pool, metricsPort, temporalDb });
    const rss = sampleWorkerRss(2_000);
    const rssAtStart = rss.now();

    log(`phase 1/5: the stack with no queue, idle for ${values['idle-s']} s (its fixed cost)...`);
    const h0 = await countHistories(temporal);
    const b0 = await snap();
    await new Promise((r) => setTimeout(r, num('idle-s') * 1000));
    const b1 = await snap();
    const h0b = await countHistories(temporal);

    log(`phase 2/5: creating ${opts.queues} queues (one repository each)...`);
    const s0 = await snap();
    await createQueues(client, stack.gitRoot, opts);
    const s1 = await snap();
    const rssAfterQueues = rss.now();
    const h1 = await countHistories(temporal);

    log(`phase 3/5: ${opts.queues} queues idle for ${values['idle-s']} s...`);
    const s1b = await snap();
    await new Promise((r) => setTimeout(r, num('idle-s') * 1000));
    const s2 = await snap();
    const h2 = await countHistories(temporal);

    log(
      `phase 4/5: ${opts.active} of ${opts.queues} queues active, ${opts.prsPerQueue} PRs each (one in ${opts.failEvery} failing)...`,
    );
    client.latencies.clear();
    const s2b = await snap();
    const merge = await runQueueLoad(client, opts);
    const s3 = await snap();
    const rssAfterMerge = rss.now();
    const h3 = await countHistories(temporal);
    const mergeLatencies = new Map(client.latencies);

    log(`phase 5/5: ${num('uploads')} uploads of ${num('tests')} results...`);
    client.latencies.clear();
    const s3b = await snap();
    const upload = await runUploadLoad(client, {
      uploads: num('uploads'),
      testsPerUpload: num('tests'),
      concurrency: Math.max(1, num('upload-concurrency')),
      repo: queueRef(0).repo,
      organisation: 'capacity',
      log,
    });
    const s4 = await snap();
    const h4 = await countHistories(temporal);
    const rssMax = rss.stop();

    const report: CapacityReport = {
      date: new Date().toISOString(),
      machine: {
        cores: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        memoryBytes: os.totalmem(),
      },
      command: `npm run bench:capacity -- ${process.argv.slice(2).join(' ')}`.trim(),
      options: {
        ...opts,
        log: undefined,
        idleSeconds: num('idle-s'),
        uploads: num('uploads'),
        tests: num('tests'),
      },
      phases: {
        baseline: { cost: phaseCost(b1, b0), histories: historyDelta(h0b, h0) },
        create: { cost: phaseCost(s1, s0), histories: historyDelta(h1, h0b), queues: opts.queues },
        idle: { cost: phaseCost(s2, s1b), histories: historyDelta(h2, h1), queues: opts.queues },
        merge: { cost: phaseCost(s3, s2b), histories: historyDelta(h3, h2), result: merge },
        upload: { cost: phaseCost(s4, s3b), histories: historyDelta(h4, h3), result: upload },
      },
      latencies: {
        merge: Object.fromEntries([...mergeLatencies].map(([route, ms]) => [route, summarise(ms)])),
        upload: Object.fromEntries([...client.latencies].map(([route, ms]) => [route, summarise(ms)])),
      },
      submitToMerge: summarise(merge.submitToMergeMs),
      retries: Object.fromEntries(client.retries),
      workerRss: { start: rssAtStart, afterQueues: rssAfterQueues, afterMerge: rssAfterMerge, max: rssMax },
    };
    await connection.close();
    await pool.end();
    console.log(formatReport(report));
    if (values.json) {
      fs.writeFileSync(values.json, `${JSON.stringify({ ...report, derived: derive(report) }, null, 2)}\n`);
      log(`figures written to ${values.json}`);
    }
  } finally {
    await stopAll();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`the run could not finish: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
