/**
 * End-to-end harness for the merge queue: a real git repository (local host), a real worker in this
 * process (the bundled workflows, the real activities) on its own task queue, and a Temporal client on
 * the dev server started by scripts/test.sh. Stories drive it through the same messages the API sends.
 *
 * The processes (control worker, executor, connections) are a deployment, started once per test file
 * (`useQueueHarness`, or `startQueueDeployment` by hand); every test gets a queue of its own on it: a
 * new organisation, a new repository with its own test command and `$GATE`, a new queue workflow.
 * Closing a queue ends every workflow it started (the queue, its PRs, its test runs, whose commands the
 * executor then stops), so the next test finds the deployment as idle as a fresh one.
 */
import { executeQueueUpdate } from './queue-updates';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Pool } from 'pg';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createLocalGitHost } from '../../git/local-git-host';
import { createProcessBroker } from '../../platform/process-runner';
import { createPool } from '../../stores/db';
import { createRunSlots } from '../../test-runs/store/run-slots';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import type { DeliveryRetryPolicy } from '../../webhooks/types';
import type { JudgeTests } from '../../test-runs/judge';
import type { QueueConfigPatch } from '../../engine';
import {
  getAdmissionsQuery,
  getQueueQuery,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  type PullRequestRecord,
  type QueueKey,
  type QueueSnapshot,
  type QueueWorkflowInput,
  type RunnerSettings,
} from '../../contract';
import { prRecord, settledRecord, waitFor } from './pr-waiting';
import { requireTestEnv } from './env';
import { startTestExecutor } from './executor';
import { createRepoWithMain, type GitFixture } from './git-fixture';
import { endQueueWorkflows } from './queue-teardown';
import { createRetryGate } from '../../queue-client/retry-gate';

let runtimeInstalled = false;

export interface QueueHarness {
  fx: GitFixture & { base: string };
  /** The event log's database (the migrated test database). */
  pool: Pool;
  /** The directory `$GATE` names in the test command. */
  gate: string;
  client: Client;
  key: QueueKey;
  workflowId: string;
  /** The control task queue (its executor takes the runs of its jobs through the API). */
  taskQueue: string;
  createQueue(
    config?: QueueConfigPatch,
    runner?: Partial<RunnerSettings>,
    extra?: Partial<QueueWorkflowInput>,
  ): Promise<void>;
  /** Commits `files` on a branch from main's tip and opens PR `n` with it; returns the head sha. */
  openPr(n: number, files: Record<string, string | null>, from?: string): string;
  submit(n: number, opts?: { priority?: number | null; noBatch?: boolean }): Promise<void>;
  queue(): Promise<QueueSnapshot>;
  pr(n: number): Promise<PullRequestRecord | null>;
  waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  /** Waits until PR `n`'s record reaches one of the terminal states. */
  settled(n: number, timeoutMs?: number): Promise<PullRequestRecord>;
  /** Subjects of main's commits, oldest first, after the initial commits. */
  mainLog(): string[];
  /**
   * Ends this queue: every workflow of its key is terminated (test commands stop with their runs) and
   * its repository removed. On a harness of `startQueueHarness`, the deployment is closed too.
   */
  close(): Promise<void>;
}

/** What one deployment is: shared by every queue started on it. */
export interface DeploymentOptions {
  /** The worker's database (migrated); default TEST_DATABASE_URL. */
  databaseUrl?: string;
  /** The worker's webhook delivery retry policy (tests shorten it); default the production one. */
  webhookRetry?: Partial<DeliveryRetryPolicy>;
  /**
   * The SDK's log level, for the first harness of the test file (one runtime per process); `ERROR`
   * for tests whose activities fail on purpose, which the SDK reports as warnings. Default `WARN`.
   */
  logLevel?: 'WARN' | 'ERROR';
  /** The executor's slots (default 4) and the per-organisation cap on runs (default the worker's). */
  executorSlots?: number;
  runsPerOrganisation?: number;
  /**
   * How the worker judges a run's JUnit, as the production worker does with the flaky-test store
   * (worker/main.ts); default none: runs have no tests, their logs end with the command's output.
   */
  judgeTests?: (pool: Pool) => JudgeTests;
  /**
   * Starts the deployment's executor instead of the in-process one (startTestExecutor): the
   * split-deployment test runs the executor process in a network namespace of its own.
   */
  startExecutor?: (ctx: {
    taskQueue: string;
    pool: Pool;
    gates: string;
  }) => Promise<{ close(): Promise<void> }>;
}

/** What one queue is: its repository's test command. */
export interface QueueOptions {
  /**
   * The repository's test command. `$GATE` is replaced by a directory the test may write to, e.g. to make
   * a PR's first run fail (flake) or to hold runs until released.
   */
  command?: string;
}

export type HarnessOptions = DeploymentOptions & QueueOptions;

export interface QueueDeployment {
  pool: Pool;
  client: Client;
  /** The control task queue (its executor takes the runs of its jobs through the API). */
  taskQueue: string;
  /** The git root every queue's bare repository is created in (the worker's local git host). */
  gitRoot: string;
  /** A queue of its own: a new organisation owning a new repository, no workflow started yet. */
  newQueue(opts?: QueueOptions): Promise<QueueHarness>;
  close(): Promise<void>;
}

export const DEFAULT_COMMAND = 'test ! -e BROKEN && sleep 0.2';

export async function startQueueDeployment(opts: DeploymentOptions = {}): Promise<QueueDeployment> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger(opts.logLevel ?? 'WARN') });
    runtimeInstalled = true;
  }
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-e2e-'));
  const gitRoot = path.join(dir, 'root');
  // Each queue's $GATE is a folder in here; the sandbox binds this one writable for all of them.
  const gates = path.join(dir, 'gates');
  fs.mkdirSync(gates);

  const pool = createPool(opts.databaseUrl ?? requireTestEnv('TEST_DATABASE_URL'), { max: 4 });
  const nativeConnection = await NativeConnection.connect({ address });
  // Closing waits out retries already scheduled (queue-client/retry-gate.ts).
  const retries = createRetryGate();
  const connection = await Connection.connect({ address, interceptors: [retries.interceptor] });
  const client = new Client({ connection });
  const taskQueue = `e2e-${randomUUID()}`;
  // Test runs go to an executor of their own, as in production (issue 17); $GATE is writable in it.
  const executor = opts.startExecutor
    ? await opts.startExecutor({ taskQueue, pool, gates })
    : await startTestExecutor({
        controlTaskQueue: taskQueue,
        pool,
        writablePaths: [gates],
        // A test's teardown ends its runs; their commands stop within a second instead of 16 s.
        heartbeatThrottleMs: 1_000,
        ...(opts.executorSlots ? { slots: opts.executorSlots } : {}),
      });
  // As the worker does (worker/main.ts): git from a small broker process, not this large one.
  const broker = createProcessBroker();
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createActivities({
      workerIdentity: 'e2e',
      gitHost: createLocalGitHost({ root: gitRoot, runner: broker }),
      processes: broker,
      client,
      ...(opts.runsPerOrganisation ? { slots: createRunSlots(pool, opts.runsPerOrganisation) } : {}),
      taskQueue,
      pool,
      allowPrivateWebhookUrls: true,
      ...(opts.webhookRetry ? { webhookRetry: opts.webhookRetry } : {}),
      ...(opts.judgeTests ? { judgeTests: opts.judgeTests(pool) } : {}),
    }),
  });
  const running = worker.run();
  const open = new Set<QueueHarness>();

  async function newQueue(queueOpts: QueueOptions = {}): Promise<QueueHarness> {
    // A repository name of its own: suites share one database, and a repository has one owner (ADR 0006).
    const fx = await createRepoWithMain(
      { host: 'github.com', owner: 'acme', name: `widgets-${randomUUID().slice(0, 8)}` },
      gitRoot,
    );
    const gate = path.join(gates, fx.repo.name);
    fs.mkdirSync(gate);
    // Writable by the sandbox's unprivileged user when tests run as root (as the executor does for `gates`).
    fs.chmodSync(gate, 0o777);
    fx.commit('add merge-queue config', {
      '.railyard/merge-queue.json': JSON.stringify({
        version: 1,
        command: (queueOpts.command ?? DEFAULT_COMMAND).replaceAll('$GATE', gate),
      }),
    });
    fx.pushBranch('main', fx.git('rev-parse', 'HEAD'));
    const initialCommits = Number(fx.bareGit('rev-list', '--count', 'main'));

    const key: QueueKey = { organisationId: randomUUID(), repo: fx.repo, targetBranch: 'main' };
    await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [
      key.organisationId,
      `e2e-${key.organisationId.slice(0, 8)}`,
    ]);
    // The worker writes only to repositories the queue's organisation owns (ADR 0006).
    const claimed = await createRepositoryOwnerStore(pool).claim(key.organisationId, key.repo, 'operator');
    if (claimed.kind !== 'claimed') throw new Error(`harness repository not claimed: ${claimed.kind}`);
    const workflowId = queueWorkflowId(key);
    const handle = () => client.workflow.getHandle(workflowId);
    const prs = new Set<number>();

    const h: QueueHarness = {
      fx,
      pool,
      gate,
      client,
      key,
      workflowId,
      taskQueue,
      async createQueue(config = {}, runnerSettings = {}, extra = {}) {
        await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
          workflowId,
          taskQueue,
          args: [{ key, config, runner: runnerSettings, ...extra } satisfies QueueWorkflowInput],
        });
      },
      openPr(n, files, from = 'main') {
        prs.add(n);
        fx.git('fetch', '--quiet', 'origin');
        fx.branchFrom(`pr-${n}`, from === 'main' ? 'origin/main' : from);
        const sha = fx.commit(`PR ${n}`, files);
        fx.pushPr(n, sha);
        return sha;
      },
      async submit(n, opts = {}) {
        prs.add(n);
        const { submissionId } = await executeQueueUpdate(handle(), submitUpdate, {
          args: [{ pr: n, priority: opts.priority ?? null, noBatch: opts.noBatch ?? false }],
        });
        // Like the API: return once the queue admitted the PR (its record can be read).
        const outcome = await h.waitFor(`PR #${n} admitted`, async () => {
          const state = (await handle().query(getAdmissionsQuery, [submissionId]))[submissionId];
          return state?.state === 'pending' ? undefined : state;
        });
        if (outcome.state === 'rejected') throw new Error(outcome.message);
      },
      queue: () => handle().query(getQueueQuery),
      pr: (n) => prRecord(client, key, n),
      waitFor,
      settled: (n, timeoutMs) => settledRecord(client, key, n, timeoutMs),
      mainLog() {
        const subjects = fx.bareGit('log', '--reverse', '--format=%s', 'main').split('\n');
        return subjects.slice(initialCommits);
      },
      async close() {
        if (!open.delete(h)) return;
        await endQueueWorkflows(client, key, [...prs]);
        fx.cleanup();
        fs.rmSync(gate, { recursive: true, force: true });
      },
    };
    open.add(h);
    return h;
  }

  return {
    pool,
    client,
    taskQueue,
    gitRoot,
    newQueue,
    async close() {
      for (const q of [...open]) await q.close();
      worker.shutdown();
      await running;
      await executor.close();
      await retries.close(connection);
      await nativeConnection.close();
      broker.close();
      await pool.end();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One deployment for the test file (started before its first test, closed after its last) and a
 * function that gives a test a queue of its own on it; each queue is closed after the test that made it.
 */
export function useQueueHarness(
  opts: DeploymentOptions = {},
): (queue?: QueueOptions) => Promise<QueueHarness> {
  let deployment: QueueDeployment | undefined;
  const made: QueueHarness[] = [];
  beforeAll(async () => {
    deployment = await startQueueDeployment(opts);
  }, 60_000);
  afterEach(async () => {
    for (const q of made.splice(0)) await q.close();
  }, 60_000);
  afterAll(async () => {
    await deployment?.close();
  }, 60_000);
  return async (queue) => {
    if (!deployment) throw new Error('no deployment: call useQueueHarness() at the top of the test file');
    const q = await deployment.newQueue(queue);
    made.push(q);
    return q;
  };
}

/** A deployment with one queue, closed together (for files that need a deployment of their own). */
export async function startQueueHarness(opts: HarnessOptions = {}): Promise<QueueHarness> {
  const { command, ...deploymentOpts } = opts;
  const deployment = await startQueueDeployment(deploymentOpts);
  const q = await deployment.newQueue(command !== undefined ? { command } : {});
  return { ...q, close: () => deployment.close() };
}
