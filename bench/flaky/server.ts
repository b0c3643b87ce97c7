/**
 * The API process of the flaky benchmark: the real app (buildApp, real routes, real store) on a real
 * port, in its own process so that it has a CPU of its own next to the load generator, with the
 * flaky-test fold loop as api/server.ts runs it. Its only difference from production is the clock: the benchmark replays 30 days of CI in minutes, so the
 * parent sets the simulated time over IPC (and waits for the acknowledgement) before each upload.
 *
 * Like api/server.ts it parses uploads on RAILYARD_PARSER_THREADS worker threads (default: cores - 1,
 * 1..4; 0 parses on the event loop), so the benchmark measures what production runs.
 *
 * Started by run.ts with DATABASE_URL, BENCH_PORT and BENCH_SECRET; not a production entry point.
 */
import pino from 'pino';
import { createJunitParser, defaultParserThreads } from '../../flaky/junit/pool';
import { createFoldLoop } from '../../flaky/fold';
import { createFlakyStore } from '../../flaky/service';
import { repositoriesToFold } from '../../flaky/store/fold-queue';
import { createPool } from '../../stores/db';
import { createApiKeyStore } from '../../stores/api-keys';
import { createIdempotencyKeyStore } from '../../stores/idempotency-keys';
import { buildApp } from '../../api/app';
import { repositoryAccessOver } from '../../api/plugins/repository-access';
import { unavailable } from '../../api/errors';
import type { MergeQueueService } from '../../api/routes/merge-queue';

type Message = { type: 'clock'; at: number } | { type: 'fold' } | { type: 'stop' };

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const pool = createPool(url, {
    max: Number(process.env.BENCH_POOL ?? 12),
    applicationName: 'railyard-bench-api',
  });
  let clock = 0;
  // As api/server.ts: acknowledged first, folded by this process's loop (ADR 0018). Every folded
  // upload's lag (acknowledgement to fold commit, database clock) is kept for the summary.
  const lags: number[] = [];
  const foldConcurrency = process.env.RAILYARD_FOLD_CONCURRENCY;
  const foldLoop = createFoldLoop(pool, {
    // As the API's setting (default 2 lanes); the benchmark compares lanes by setting it.
    ...(foldConcurrency ? { concurrency: Number(foldConcurrency) } : {}),
    onBatch: (outcome) => lags.push(...outcome.lagSeconds),
    onError: (err) => console.error(`bench fold failed: ${err instanceof Error ? err.stack : String(err)}`),
  });
  const store = createFlakyStore(pool, {
    now: () => new Date(clock),
    fold: { kind: 'async', wake: () => foldLoop.wake() },
  });
  // The merge queue is not part of this benchmark; every call to it says so.
  const mergeQueue = new Proxy({} as MergeQueueService, {
    get: () => () => Promise.reject(unavailable('The merge queue is not running in the flaky benchmark.')),
  });
  const logger = pino({ level: 'warn' });
  const threads = process.env.RAILYARD_PARSER_THREADS;
  const parser = await createJunitParser({
    threads: threads === undefined || threads === '' ? defaultParserThreads() : Number(threads),
    warn: (err, message) => logger.warn({ err }, message),
  });
  const app = await buildApp({
    logger,
    keys: createApiKeyStore(pool),
    repositories: repositoryAccessOver(pool),
    idempotencyKeys: createIdempotencyKeyStore(pool),
    probes: { postgres: async () => void (await pool.query('SELECT 1')), temporal: () => Promise.resolve() },
    mergeQueue,
    publicUrl: 'http://127.0.0.1',
    flaky: { store, pageTokenSecret: process.env.BENCH_SECRET!, parser },
  });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT ?? 0) });
  // BENCH_FOLD_DEFERRED=1: no fold while loading (the acknowledgement's cost alone); the loop starts at
  // the parent's 'fold' message, and the drain time is then the fold's own throughput.
  const deferred = process.env.BENCH_FOLD_DEFERRED === '1';
  if (!deferred) foldLoop.start();
  const address = app.server.address();
  process.on('message', (message: Message) => {
    switch (message.type) {
      case 'clock':
        clock = Math.max(clock, message.at);
        process.send?.({ type: 'clock', at: clock });
        return;
      case 'fold':
        // Answers once every acknowledged upload is folded, with the lags since the last answer.
        void (async () => {
          const started = performance.now();
          foldLoop.start();
          while ((await repositoriesToFold(pool)).length > 0) await new Promise((r) => setTimeout(r, 100));
          process.send?.({
            type: 'fold',
            lags: lags.splice(0),
            drainSeconds: (performance.now() - started) / 1000,
          });
        })();
        return;
      case 'stop':
        void app
          .close()
          .then(() => foldLoop.stop())
          .then(() => parser.close())
          .then(() => pool.end())
          .then(() => process.exit(0));
        return;
    }
  });
  process.send?.({
    type: 'ready',
    port: typeof address === 'object' && address !== null ? address.port : 0,
    parserThreads: 'threads' in parser ? parser.threads : 0,
  });
}

main().catch((err: unknown) => {
  console.error(`bench api failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
