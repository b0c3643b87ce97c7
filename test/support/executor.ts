/**
 * Executors for end-to-end tests (issue 17, issue 24): the API's real executor routes (/v1/executor/*,
 * with the dispatch that completes the worker's asynchronous executeTestRun activities) on a listening
 * Fastify server reading the test database, and the real executor job loop (worker/executor.ts's) in
 * this process, or the real executor process — so every test run goes worker → job → API → executor
 * over HTTP exactly as in production, the executor holding only the API's URL and a credential.
 *
 * Test commands run in the bwrap sandbox (scripts/test.sh installs it), with `writablePaths` (the
 * stories' $GATE folder) bound in. Where bwrap or pasta cannot run, under CI the test fails; elsewhere
 * the runs are unsandboxed or share the host's network, said loudly (testSandbox).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Pool } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { createExecutorApi } from '../../executor/api-client';
import { startJobLoop } from '../../executor/job-loop';
import { createJobRunner } from '../../executor/run-job';
import { createRunContentStore } from '../../test-runs/store/run-content';
import { createExecutorCredentials } from '../../test-runs/store/executor-credentials';
import { createExecutorJobs } from '../../test-runs/store/executor-jobs';
import { createExecutorDispatch } from '../../test-runs/executor-dispatch';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../../executor/sandbox';
import { probeSandbox, type SandboxProbe } from '../../executor/sandbox-probe';
import { executorRoutes } from '../../api/routes/executor';
import { registerErrorHandler } from '../../api/plugins/error-handler';
import { requireTestEnv } from './env';
import { INSTALL, requireTool } from './required-tool';
import { tsNode } from '../../scripts/lib/ts-node';
import { sharedProcessBroker } from './shared-brokers';

export interface TestExecutor {
  /** The executor API's base URL (what RAILYARD_EXECUTOR_API_URL would be). */
  apiUrl: string;
  sandboxed: boolean;
  close(): Promise<void>;
}

export interface TestExecutorOptions {
  /** The control task queue: its jobs are the ones this executor's API hands out. */
  controlTaskQueue: string;
  pool: Pool;
  /** Folders the sandboxed command may write besides its checkout (made writable by everyone). */
  writablePaths?: string[];
  /** Concurrent runs (the executor's slots); default 4. */
  slots?: number;
  /** false: never sandbox (tests of the unsandboxed path). */
  sandbox?: boolean;
  /**
   * How often a running job heartbeats through the API (default 1 s): also how soon a run learns it was
   * cancelled or its workflow ended, and stops.
   */
  heartbeatIntervalMs?: number;
  /** Accepted for older callers; heartbeats go through the API unthrottled (heartbeatIntervalMs). */
  heartbeatThrottleMs?: number;
  /** Temporal's address (the API side's); default TEST_TEMPORAL_ADDRESS (scripts/test.sh). */
  temporalAddress?: string;
}

/** The API's executor routes alone, on a loopback port, and a way to issue credentials. */
export interface ExecutorApiServer {
  url: string;
  /** Issues a new executor credential (a unique name when none is given). */
  issue(name?: string): Promise<string>;
  close(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The machine's sandbox probe, once per `npm test` run: the first file to ask probes (bwrap and pasta
 * trials, started from a large jest worker) and leaves the answer in TEST_TMP for the rest; the
 * machine does not change within a run. Without TEST_TMP (a unit test alone) it probes.
 */
function runProbe(): SandboxProbe {
  const dir = process.env.TEST_TMP;
  if (!dir) return probeSandbox('bwrap');
  const file = path.join(dir, 'sandbox-probe.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SandboxProbe;
  } catch {
    // Not probed yet in this run (or a half-written answer is impossible: it is renamed into place).
  }
  const probe = probeSandbox('bwrap');
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(probe));
  renameSync(partial, file);
  return probe;
}

/**
 * The sandbox test commands run in: bwrap, with pasta giving network-on runs a network of their own
 * (as an executor would choose). Without either, under CI this throws (required-tool.ts); elsewhere the
 * runs are unsandboxed (null) or share the host's network, said loudly once per test file.
 */
export function testSandbox(writablePaths: string[] = []): SandboxSettings | null {
  const probe = runProbe();
  const bwrap = requireTool({
    tool: 'bwrap',
    probe,
    install: INSTALL.bwrap,
    neededBy: "the test executor's sandbox (without it test commands run unsandboxed)",
  });
  if (!bwrap || probe.kind !== 'available') return null;
  requireTool({
    tool: 'pasta',
    probe: probe.isolatedNetwork,
    install: INSTALL.pasta,
    neededBy: "the test executor's isolated network (without it network-on runs share the host's network)",
  });
  // Outside CI, without pasta, the stories still run: on the host's network, as an operator's allow would.
  const network =
    probe.isolatedNetwork.kind === 'available'
      ? { pasta: 'pasta' }
      : { unisolatedNetwork: { kind: 'host' as const, reason: probe.isolatedNetwork.reason } };
  return { ...DEFAULT_SANDBOX, bwrap: 'bwrap', ...network, writablePaths };
}

/**
 * The API's /v1/executor/* routes alone (the app's error handler and zod compilers, as buildApp sets
 * them), with a Temporal client of their own for the dispatch, on a loopback port.
 */
export async function startExecutorApi(opts: {
  pool: Pool;
  taskQueue: string;
  temporalAddress?: string;
  keepAliveMs?: number;
  claimWaitMs?: number;
  /** The address it listens on; default 127.0.0.1 (the split-deployment test gives a veth's). */
  host?: string;
}): Promise<ExecutorApiServer> {
  const connection = await Connection.connect({
    address: opts.temporalAddress ?? requireTestEnv('TEST_TEMPORAL_ADDRESS'),
  });
  const client = new Client({ connection });
  const credentials = createExecutorCredentials(opts.pool);
  // Closing ends open connections too: a long poll or a keep-alive socket must not hold teardown.
  const server = Fastify({ logger: false, forceCloseConnections: true });
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(server);
  await server.register(
    executorRoutes({
      credentials,
      dispatch: createExecutorDispatch({
        jobs: createExecutorJobs(opts.pool),
        activities: client.activity,
        taskQueue: opts.taskQueue,
      }),
      contents: createRunContentStore(opts.pool),
      ...(opts.keepAliveMs !== undefined ? { keepAliveMs: opts.keepAliveMs } : {}),
      ...(opts.claimWaitMs !== undefined ? { claimWaitMs: opts.claimWaitMs } : {}),
    }),
    { prefix: '/v1' },
  );
  const url = await server.listen({ host: opts.host ?? '127.0.0.1', port: 0 });
  return {
    url,
    async issue(name) {
      const added = await credentials.add(name ?? `test-${randomUUID().slice(0, 8)}`);
      if (added.kind !== 'added') throw new Error(`executor name ${name} is taken`);
      return added.token;
    },
    async close() {
      await server.close();
      await connection.close();
    },
  };
}

/**
 * The real executor process (worker/executor.ts) in its own process group (a SIGKILL reaches its test
 * commands), with an environment built from nothing: no DATABASE_URL or secret of this test process.
 */
export function startExecutorProcess(opts: {
  apiUrl: string;
  /** The executor's credential (ExecutorApiServer.issue). */
  credential: string;
  workRoot: string;
  /** Folders test commands may read (RAILYARD_SANDBOX_READ_ONLY_PATHS). */
  readOnlyPaths?: string[];
  log?: string;
  /** A network namespace (`ip netns`) to run it in: `ip netns exec` execs it, so the pid is the executor's. */
  netns?: string;
  /** More settings of the executor (RAILYARD_SANDBOX_NETWORK_ALLOW, ...). */
  env?: Record<string, string>;
}): ChildProcess {
  const out = opts.log ? openSync(opts.log, 'a') : 'ignore';
  // One Node process (scripts/lib/ts-node.ts). It once ran through the tsx CLI because a killed
  // executor's test command outlived it; that was the sandbox gate bwrap blocked on before arming its
  // death signal (abdc701, test/integration/executor/sandbox-gate.test.ts), not the way it was started.
  const executor = tsNode('worker/executor.ts').flat();
  const [command, ...args] = opts.netns ? ['ip', 'netns', 'exec', opts.netns, ...executor] : executor;
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/',
      RAILYARD_EXECUTOR_API_URL: opts.apiUrl,
      RAILYARD_EXECUTOR_TOKEN: opts.credential,
      RAILYARD_EXECUTOR_WORK_ROOT: opts.workRoot,
      RAILYARD_EXECUTOR_HEALTH_PORT: '0',
      RAILYARD_LOG_LEVEL: 'warn',
      ...(opts.readOnlyPaths ? { RAILYARD_SANDBOX_READ_ONLY_PATHS: opts.readOnlyPaths.join(',') } : {}),
      // Where bwrap cannot run (no user namespaces) the stories still run, unsandboxed, as said.
      ...(testSandbox() === null ? { RAILYARD_EXECUTOR_UNSANDBOXED: '1' } : {}),
      ...opts.env,
    },
    detached: true,
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') closeSync(out);
  return child;
}

export async function startTestExecutor(opts: TestExecutorOptions): Promise<TestExecutor> {
  const api = await startExecutorApi({
    pool: opts.pool,
    taskQueue: opts.controlTaskQueue,
    ...(opts.temporalAddress ? { temporalAddress: opts.temporalAddress } : {}),
  });
  const credential = await api.issue();
  const root = mkdtempSync(path.join(os.tmpdir(), 'railyard-executor-'));
  // Searchable by the sandbox's unprivileged user when tests run as root (sandbox.ts).
  chmodSync(root, 0o711);
  for (const dir of opts.writablePaths ?? []) {
    chmodSync(dir, 0o777);
    chmodSync(path.dirname(dir), 0o711);
  }
  const sandbox = opts.sandbox === false ? null : testSandbox(opts.writablePaths);
  const loop = startJobLoop({
    api: createExecutorApi({ apiUrl: api.url, credential }),
    slots: opts.slots ?? 4,
    heartbeatMs: opts.heartbeatIntervalMs ?? 1_000,
    runJob: createJobRunner({
      apiUrl: api.url,
      credential,
      workRoot: path.join(root, 'checkouts'),
      logRoot: path.join(root, 'logs'),
      sandbox,
      maxContentBytes: 256 * 1024 * 1024,
      // This jest worker is a large process: the runs' git and chown go through its broker.
      processes: sharedProcessBroker(),
    }),
  });
  return {
    apiUrl: api.url,
    sandboxed: sandbox !== null,
    async close() {
      await loop.stop(5_000);
      await api.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
