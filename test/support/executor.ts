/**
 * An executor for end-to-end tests (issue 17): the real executor activity (worker/executor.ts's) on the
 * executor task queue of `controlTaskQueue`, in this process, and the API's real run-content route on a
 * listening Fastify server reading the test database — so every test run goes control plane → API →
 * executor exactly as in production, without the executor holding the database.
 *
 * Test commands run in the bwrap sandbox (scripts/test.sh installs it), with `writablePaths` (the
 * stories' $GATE folder) bound in. Where bwrap or pasta cannot run, under CI the test fails; elsewhere
 * the runs are unsandboxed or share the host's network, said loudly (testSandbox).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import type { Pool } from 'pg';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createExecutorActivities } from '../../executor/executor-activities';
import { createRunContentStore } from '../../test-runs/store/run-content';
import { DEFAULT_SANDBOX, probeSandbox, type SandboxSettings } from '../../executor/sandbox';
import { executorTaskQueue } from '../../contract';
import { executorRoutes } from '../../api/routes/executor/run-content';
import { requireTestEnv } from './env';
import { INSTALL, requireTool } from './required-tool';

export interface TestExecutor {
  /** The content server's base URL (what RAILYARD_EXECUTOR_API_URL would be). */
  apiUrl: string;
  sandboxed: boolean;
  close(): Promise<void>;
}

export interface TestExecutorOptions {
  controlTaskQueue: string;
  pool: Pool;
  /** Folders the sandboxed command may write besides its checkout (made writable by everyone). */
  writablePaths?: string[];
  /** Concurrent runs (the executor's slots); default 4. */
  slots?: number;
  /** false: never sandbox (tests of the unsandboxed path). */
  sandbox?: boolean;
  heartbeatIntervalMs?: number;
  /**
   * How often heartbeats reach Temporal at most (the SDK's default is 80% of the heartbeat timeout, 16 s
   * for test runs): also how soon a run learns it was cancelled or its workflow ended, and stops.
   */
  heartbeatThrottleMs?: number;
  /** Temporal's address; default TEST_TEMPORAL_ADDRESS (scripts/test.sh). */
  temporalAddress?: string;
}

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The sandbox test commands run in: bwrap, with pasta giving network-on runs a network of their own
 * (as an executor would choose). Without either, under CI this throws (required-tool.ts); elsewhere the
 * runs are unsandboxed (null) or share the host's network, said loudly once per test file.
 */
export function testSandbox(writablePaths: string[] = []): SandboxSettings | null {
  const probe = probeSandbox('bwrap');
  const bwrap = requireTool({
    tool: 'bwrap',
    probe,
    install: INSTALL.bwrap,
    neededBy: "the test executor's sandbox (without it test commands run unsandboxed)",
  });
  if (!bwrap || probe.kind !== 'available') return null;
  const isolated = requireTool({
    tool: 'pasta',
    probe: probe.isolatedNetwork,
    install: INSTALL.pasta,
    neededBy: "the test executor's isolated network (without it network-on runs share the host's network)",
  });
  return { ...DEFAULT_SANDBOX, bwrap: 'bwrap', ...(isolated ? { pasta: 'pasta' } : {}), writablePaths };
}

/** The API's run-content route alone, on a loopback port: what executors fetch from. */
export async function startContentServer(pool: Pool): Promise<{ url: string; close(): Promise<void> }> {
  const server = Fastify({ logger: false });
  await server.register(executorRoutes({ contents: createRunContentStore(pool) }), { prefix: '/v1' });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => server.close() };
}

/**
 * The real executor process (worker/executor.ts) in its own process group (a SIGKILL reaches its test
 * commands), with an environment built from nothing: no DATABASE_URL or secret of this test process.
 */
export function startExecutorProcess(opts: {
  controlTaskQueue: string;
  apiUrl: string;
  workRoot: string;
  /** Folders test commands may read (RAILYARD_SANDBOX_READ_ONLY_PATHS). */
  readOnlyPaths?: string[];
  log?: string;
}): ChildProcess {
  const out = opts.log ? openSync(opts.log, 'a') : 'ignore';
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['worker/executor.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/',
      TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      RAILYARD_TASK_QUEUE: opts.controlTaskQueue,
      RAILYARD_EXECUTOR_API_URL: opts.apiUrl,
      RAILYARD_EXECUTOR_WORK_ROOT: opts.workRoot,
      RAILYARD_EXECUTOR_HEALTH_PORT: '0',
      RAILYARD_LOG_LEVEL: 'warn',
      ...(opts.readOnlyPaths ? { RAILYARD_SANDBOX_READ_ONLY_PATHS: opts.readOnlyPaths.join(',') } : {}),
      // Where bwrap cannot run (no user namespaces) the stories still run, unsandboxed, as said.
      ...(testSandbox() === null ? { RAILYARD_EXECUTOR_UNSANDBOXED: '1' } : {}),
    },
    detached: true,
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') closeSync(out);
  return child;
}

export async function startTestExecutor(opts: TestExecutorOptions): Promise<TestExecutor> {
  const content = await startContentServer(opts.pool);
  const address = content.url;
  const root = mkdtempSync(path.join(os.tmpdir(), 'railyard-executor-'));
  // Searchable by the sandbox's unprivileged user when tests run as root (sandbox.ts).
  chmodSync(root, 0o711);
  for (const dir of opts.writablePaths ?? []) {
    chmodSync(dir, 0o777);
    chmodSync(path.dirname(dir), 0o711);
  }
  const sandbox = opts.sandbox === false ? null : testSandbox(opts.writablePaths);
  const connection = await NativeConnection.connect({
    address: opts.temporalAddress ?? requireTestEnv('TEST_TEMPORAL_ADDRESS'),
  });
  const worker = await Worker.create({
    connection,
    taskQueue: executorTaskQueue(opts.controlTaskQueue),
    maxConcurrentActivityTaskExecutions: opts.slots ?? 4,
    ...(opts.heartbeatThrottleMs !== undefined
      ? { maxHeartbeatThrottleInterval: opts.heartbeatThrottleMs }
      : {}),
    activities: createExecutorActivities({
      apiUrl: address,
      workRoot: path.join(root, 'checkouts'),
      logRoot: path.join(root, 'logs'),
      sandbox,
      maxContentBytes: 256 * 1024 * 1024,
      runner: { heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 1_000 },
    }),
  });
  const running = worker.run();
  return {
    apiUrl: address,
    sandboxed: sandbox !== null,
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await content.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
