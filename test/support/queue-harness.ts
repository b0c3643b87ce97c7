/**
 * End-to-end harness for the merge queue: a real git repository (local host), a real worker in this
 * process (the bundled workflows, the real activities) on its own task queue, and a Temporal client on
 * the dev server started by scripts/test.sh. Stories drive it through the same messages the API sends.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Pool } from 'pg';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createEventActivities } from '../../activities/events';
import { createPool } from '../../stores/db';
import { createRunSlots } from '../../test-runs/store/run-slots';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import type { DeliveryRetryPolicy } from '../../webhooks/types';
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
  /** The control task queue (its executor serves `<it>-ci`). */
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
  close(): Promise<void>;
}

export interface HarnessOptions {
  /**
   * The repository's test command. `$GATE` is replaced by a directory the test may write to, e.g. to make
   * a PR's first run fail (flake) or to hold runs until released.
   */
  command?: string;
  /** The worker's database (migrated); default TEST_DATABASE_URL. */
  databaseUrl?: string;
  /** The worker's webhook delivery retry policy (tests shorten it); default the production one. */
  webhookRetry?: Partial<DeliveryRetryPolicy>;
  /**
   * The SDK's log level, for the first harness of the test file (one runtime per process); `ERROR`
   * for tests whose activities fail on purpose, which the SDK reports as warnings. Default `WARN`.
   */
  logLevel?: 'WARN' | 'ERROR';
  /**
   * Share another harness's deployment (two organisations on one railyard): its git root, control
   * worker and executor serve this harness's repository too; this harness starts no process of its own.
   */
  shareWith?: QueueHarness;
  /** The executor's slots (default 4) and the per-organisation cap on runs (default the worker's). */
  executorSlots?: number;
  runsPerOrganisation?: number;
}

export const DEFAULT_COMMAND = 'test ! -e BROKEN && sleep 0.2';

export async function startQueueHarness(opts: HarnessOptions = {}): Promise<QueueHarness> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger(opts.logLevel ?? 'WARN') });
    runtimeInstalled = true;
  }
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  // A repository name of its own: suites share one database, and a repository has one owner (ADR 0006).
  const fx = await createRepoWithMain(
    { host: 'github.com', owner: 'acme', name: `widgets-${randomUUID().slice(0, 8)}` },
    opts.shareWith?.fx.root,
  );
  const gate = path.join(fx.dir, 'gate');
  fs.mkdirSync(gate);
  fx.commit('add merge-queue config', {
    '.railyard/merge-queue.json': JSON.stringify({
      version: 1,
      command: (opts.command ?? DEFAULT_COMMAND).replaceAll('$GATE', gate),
    }),
  });
  fx.pushBranch('main', fx.git('rev-parse', 'HEAD'));
  const initialCommits = Number(fx.bareGit('rev-list', '--count', 'main'));

  const pool = createPool(opts.databaseUrl ?? requireTestEnv('TEST_DATABASE_URL'), { max: 4 });
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = opts.shareWith?.taskQueue ?? `e2e-${randomUUID()}`;
  // Test runs go to an executor of their own, as in production (issue 17); $GATE is writable in it.
  const executor = opts.shareWith
    ? null
    : await startTestExecutor({
        controlTaskQueue: taskQueue,
        pool,
        writablePaths: [gate],
        ...(opts.executorSlots ? { slots: opts.executorSlots } : {}),
      });
  const worker = opts.shareWith
    ? null
    : await Worker.create({
        connection: nativeConnection,
        taskQueue,
        workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
        activities: {
          ...createActivities({
            workerIdentity: 'e2e',
            gitHost: fx.host,
            client,
            ...(opts.runsPerOrganisation ? { slots: createRunSlots(pool, opts.runsPerOrganisation) } : {}),
            taskQueue,
            pool,
            allowPrivateWebhookUrls: true,
          }),
          ...(opts.webhookRetry
            ? createEventActivities({
                pool,
                client,
                taskQueue,
                allowPrivateWebhookUrls: true,
                webhookRetry: opts.webhookRetry,
              })
            : {}),
        },
      });
  const running = worker?.run() ?? Promise.resolve();
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
      fx.git('fetch', '--quiet', 'origin');
      fx.branchFrom(`pr-${n}`, from === 'main' ? 'origin/main' : from);
      const sha = fx.commit(`PR ${n}`, files);
      fx.pushPr(n, sha);
      return sha;
    },
    async submit(n, opts = {}) {
      const { submissionId } = await handle().executeUpdate(submitUpdate, {
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
      worker?.shutdown();
      await running;
      await executor?.close();
      await connection.close();
      await nativeConnection.close();
      await pool.end();
      fx.cleanup();
    },
  };
  return h;
}
