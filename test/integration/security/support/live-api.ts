/**
 * The real HTTP API on a loopback port, backed by the real Temporal service and an in-process worker (the
 * bundled workflows and the real activities) on its own task queue, with a git world of its own and API
 * keys in a scratch database. Tests drive it with plain HTTP requests, as a CI job would, and read the
 * API's captured log.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createActivities } from '../../../../activities';
import { createLocalGitHost } from '../../../../git/local-git-host';
import { createProcessBroker } from '../../../../platform/process-runner';
import type { RepositoryKey } from '../../../../contract';
import { createApiKeyStore } from '../../../../stores/api-keys';
import { createExecutorCredentials } from '../../../../test-runs/store/executor-credentials';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../../queue-client';
import { createMergeQueueService } from '../../../../api/temporal/merge-queue-service';
import { createPreflightService } from '../../../../api/temporal/preflights';
import { createGitWorld, type GitWorld } from '../../../../scripts/lib/git-world';
import { buildTestApp, type CapturedLog, type TestAppDeps } from '../../../support/app';
import { startTestExecutor } from '../../../support/executor';
import { requireTestEnv } from '../../../support/env';
import { createMigratedDatabase } from '../../../support/postgres';
import { createPool } from '../../../../stores/db';

export interface HttpAnswer {
  status: number;
  body: string;
  contentType: string | undefined;
  json<T = unknown>(): T;
}

export interface LiveApi {
  url: string;
  world: GitWorld;
  pool: Pool;
  log: CapturedLog;
  temporal: TemporalGateway;
  /** The executor routes (/v1/executor/*) of this stack's executor, on a port of their own. */
  executorUrl: string;
  /** Issues an executor credential (a name of its own); returns it. */
  executorCredential(): Promise<string>;
  /** Issues a key for `slug` (creating the organisation); returns the key. */
  key(slug: string): Promise<string>;
  post(route: string, body: unknown, key: string): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export interface LiveApiOptions {
  /** The repository's test command (`.railyard/merge-queue.json`). */
  command?: string;
  callTimeoutMs?: number;
  /** How long a change may wait for a busy queue (the gateway's default otherwise). */
  busyBudgetMs?: number;
  repo?: RepositoryKey;
  /** More app dependencies, built on the API's database (stores with other limits, say). */
  appDeps?: (pool: Pool) => TestAppDeps;
}

let runtimeInstalled = false;

function installRuntimeOnce(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another suite in this jest worker installed it already.
  }
}

export async function startLiveApi(opts: LiveApiOptions = {}): Promise<LiveApi> {
  installRuntimeOnce();
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const dir = fs.mkdtempSync(path.join(process.env.TEST_TMP ?? os.tmpdir(), 'live-api-'));
  const repo = opts.repo ?? { host: 'github.com', owner: 'acme', name: 'app' };
  const world = await createGitWorld(path.join(dir, 'git'), repo, {
    '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: opts.command ?? 'true' }),
    'README.md': 'app\n',
  });
  const { url: databaseUrl, pool } = await createMigratedDatabase('live_api');
  // The worker has a pool of its own, as in production (its own process): its activities' writes (the
  // read projection's, ADR 0016) must not take the connections the API answers requests with.
  const workerPool = createPool(databaseUrl, { max: 5 });
  const taskQueue = `live-api-${randomUUID()}`;

  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  // git runs from a small broker process, as in the worker: started from this jest worker (a large
  // process) every git command would cost a copy of its page tables (about a third of concurrency's CPU).
  const broker = createProcessBroker();
  const gitHost = createLocalGitHost({ root: world.root, runner: broker });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createActivities({
      workerIdentity: 'live-api',
      gitHost,
      processes: broker,
      client: new Client({ connection }),
      taskQueue,
      pool: workerPool,
      allowPrivateWebhookUrls: true,
    }),
  });
  const running = worker.run();
  const executor = await startTestExecutor({ controlTaskQueue: taskQueue, pool });

  const temporal = createTemporalGateway({
    address,
    namespace: 'default',
    taskQueue,
    callTimeoutMs: opts.callTimeoutMs ?? 10_000,
    ...(opts.busyBudgetMs !== undefined ? { busyBudgetMs: opts.busyBudgetMs } : {}),
  });
  const keys = createApiKeyStore(pool);
  const built: { app: FastifyInstance; log: CapturedLog } = await buildTestApp(pool, {
    keys,
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
    preflights: createPreflightService({ client: temporal.client, taskQueue }),
    ...opts.appDeps?.(pool),
  });
  const url = await built.app.listen({ host: '127.0.0.1', port: 0 });

  return {
    url,
    world,
    pool,
    log: built.log,
    temporal,
    executorUrl: executor.apiUrl,
    async executorCredential() {
      const added = await createExecutorCredentials(pool).add(`live-${randomUUID().slice(0, 8)}`);
      if (added.kind !== 'added') throw new Error('executor name taken');
      return added.token;
    },
    key: async (slug) => (await keys.create(slug)).key,
    async post(route, body, key) {
      const res = await fetch(`${url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': key },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        body: text,
        contentType: res.headers.get('content-type') ?? undefined,
        json: <T>() => JSON.parse(text) as T,
      };
    },
    async close() {
      await built.app.close();
      worker.shutdown();
      await running;
      broker.close();
      await executor.close();
      await Promise.allSettled([
        temporal.close(),
        connection.close(),
        nativeConnection.close(),
        pool.end(),
        workerPool.end(),
      ]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
