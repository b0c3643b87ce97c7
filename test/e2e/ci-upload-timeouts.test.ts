/**
 * A failed CI-judged run's read of CI's uploads when time runs out (issue 28, workflows/queue/ci-uploads.ts,
 * activities/merge-queue/uploaded-failures.ts), on the real stack: Temporal's dev server, a worker in this
 * process with the real activities, PostgreSQL and git (local host); CI is the test, signalling statuses.
 *
 * - The wait expiring: the worker's wait comes from its environment as worker/main.ts takes it
 *   (RAILYARD_CI_UPLOAD_WAIT_SECONDS=2 through loadWorkerConfig). CI uploads for the repository but not
 *   for the run's commit: the run fails by its statuses after the wait, its record says so
 *   (noUploadAfterSeconds), and nothing is retried.
 * - The read timing out: the store's connections have a short statement_timeout (stores/db.ts, 300 ms)
 *   and the uploads table is locked while the run fails, so every attempt of the read is cancelled by
 *   PostgreSQL: the run fails by its statuses, its record says the uploads could not be read
 *   (uploadsUnreadable), never a pass or a flaky retry.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createActivities } from '../../activities';
import {
  commitStatusSignal,
  getAdmissionsQuery,
  getPullRequestQuery,
  getTestRunQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  type PullRequestRecord,
  type QueueKey,
  type QueueWorkflowInput,
} from '../../contract';
import { parseJunitText } from '../../flaky/junit';
import { createFlakyStore, type FlakyStore } from '../../flaky/service';
import { createLocalGitHost } from '../../git/local-git-host';
import { createProcessBroker } from '../../platform/process-runner';
import { createPool } from '../../stores/db';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { loadWorkerConfig } from '../../worker/config';
import { requireTestEnv } from '../support/env';
import { createRepoWithMain, type GitFixture } from '../support/git-fixture';
import { settledRecord, waitFor } from '../support/pr-waiting';

const STATEMENT_TIMEOUT_MS = 300;
let root: string;
let pool: Pool;
let readPool: Pool;
let flaky: FlakyStore;
let client: Client;
let connection: Connection;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let taskQueue: string;
let waitSeconds: number;
/** Every failure of the worker's reads of CI's uploads, in order. */
const readErrors: string[] = [];
const broker = createProcessBroker();
const fixtures: GitFixture[] = [];

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const databaseUrl = requireTestEnv('TEST_DATABASE_URL');
  // The wait as a worker reads it from its environment.
  const config = loadWorkerConfig({
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: address,
    RAILYARD_CI_UPLOAD_WAIT_SECONDS: '2',
  });
  waitSeconds = config.RAILYARD_CI_UPLOAD_WAIT_SECONDS;
  root = mkdtempSync(path.join(tmpdir(), 'railyard-ci-upload-timeouts-'));
  pool = createPool(databaseUrl, { max: 4 });
  flaky = createFlakyStore(pool);
  // The worker's reads of uploads: connections whose statements PostgreSQL cancels after 300 ms.
  readPool = createPool(databaseUrl, { max: 2, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  const reads = createFlakyStore(readPool);
  const noted =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        readErrors.push(String(err));
        throw err;
      }
    };
  nativeConnection = await NativeConnection.connect({ address });
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  taskQueue = `e2e-ci-upload-timeouts-${randomUUID()}`;
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createActivities({
      workerIdentity: 'e2e-ci-upload-timeouts',
      gitHost: createLocalGitHost({ root, runner: broker }),
      client,
      taskQueue,
      pool,
      allowPrivateWebhookUrls: true,
      // As worker/main.ts wires it, with the wait from the environment.
      uploadedFailures: {
        read: noted((...args) => reads.failedTestsOfCommit(...args)),
        uploadsEver: noted((...args) => reads.hasUploads(...args)),
        waitMs: config.RAILYARD_CI_UPLOAD_WAIT_SECONDS * 1000,
        pollMs: 500,
      },
    }),
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  broker.close();
  await connection?.close();
  await nativeConnection?.close();
  await pool?.end();
  await readPool?.end();
  for (const fx of fixtures) fx.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
});

const REPORT = (name: string, failed: boolean) =>
  `<testsuites><testsuite name="cart"><testcase classname="cart" name="${name}" file="src/cart.test.ts">${failed ? '<failure message="x">at x</failure>' : ''}</testcase></testsuite></testsuites>`;

/** A repository CI uploads for (main's results), its organisation and a CI-judged queue; PR 1 testing. */
async function failingCiRun(): Promise<{
  key: QueueKey;
  fx: GitFixture;
  sha: string;
  fail(): Promise<void>;
}> {
  const repo = { host: 'github.com', owner: 'acme', name: `cart-${randomUUID().slice(0, 8)}` };
  const fx = await createRepoWithMain(repo, root);
  fixtures.push(fx);
  const organisationId = randomUUID();
  const slug = `q-${organisationId.slice(0, 8)}`;
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [organisationId, slug]);
  const claimed = await createRepositoryOwnerStore(pool).claim(organisationId, repo, 'operator');
  if (claimed.kind !== 'claimed') throw new Error(`repository not claimed: ${claimed.kind}`);
  // CI uploads in this repository (so a failed run waits for its upload), a known flaky test among them.
  await flaky.ingest({
    organisationId,
    organisationSlug: slug,
    repository: repo,
    metadata: { uploadId: 'main-1', commitSha: fx.tip('main'), branch: 'main', attempt: 1, variant: '' },
    files: [await parseJunitText(REPORT('totals', false), { fileName: 'cart.xml' })],
  });
  const key: QueueKey = { organisationId, repo, targetBranch: 'main' };
  const handle = client.workflow.getHandle(queueWorkflowId(key));
  await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
    workflowId: queueWorkflowId(key),
    taskQueue,
    args: [
      {
        key,
        config: { concurrency: 1 },
        runner: { requiredStatuses: ['ci/test'] },
      } satisfies QueueWorkflowInput,
    ],
  });
  fx.branchFrom('pr-1', fx.base);
  fx.pushPr(1, fx.commit('PR 1', { 'pr.txt': '1' }));
  const { submissionId } = await handle.executeUpdate(submitUpdate, {
    args: [{ pr: 1, priority: null, noBatch: false }],
  });
  await waitFor('PR #1 admitted', async () => {
    const state = (await handle.query(getAdmissionsQuery, [submissionId]))[submissionId];
    return state?.state === 'pending' ? undefined : state;
  });
  const runId = await waitFor('PR #1 testing', async () => {
    const record = await client.workflow.getHandle(prWorkflowId(key, 1)).query(getPullRequestQuery);
    return record.state === 'testing' ? (record.timeline.at(-1)?.testRunId ?? undefined) : undefined;
  });
  const run = await waitFor(`run ${runId} built`, async () => {
    const d = await handle.query(getTestRunQuery, runId);
    return d?.testBranchSha && d.status === 'in_progress' ? d : undefined;
  });
  const sha = run.testBranchSha!;
  return {
    key,
    fx,
    sha,
    fail: () =>
      handle.signal(commitStatusSignal, {
        sha,
        context: 'ci/test',
        state: 'failure',
        url: null,
        description: null,
      }),
  };
}

const reasonsOf = (r: PullRequestRecord) => r.timeline.map((t) => t.reason);

test('the wait for CI upload expiring (RAILYARD_CI_UPLOAD_WAIT_SECONDS=2): failed by its statuses, the record names the wait', async () => {
  expect(waitSeconds).toBe(2);
  const errorsBefore = readErrors.length;
  const w = await failingCiRun();
  await w.fail();
  const failed = await settledRecord(client, w.key, 1, 60_000);
  expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  expect(reasonsOf(failed)).not.toContain('FLAKY_TESTS_RETRIED');
  expect(failed.timeline.at(-1)?.detail).toEqual({
    kind: 'statuses',
    failed: ['ci/test'],
    missing: [],
    noUploadAfterSeconds: 2,
  });
  // The reads answered (none found) rather than failed.
  expect(readErrors.slice(errorsBefore)).toEqual([]);
}, 90_000);

test('the read of CI uploads timing out on every attempt: failed by its statuses, the record says they could not be read', async () => {
  const w = await failingCiRun();
  const errorsBefore = readErrors.length;
  // Held in a transaction of its own: every read of the uploads waits for it, until PostgreSQL cancels it.
  const locker = await pool.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE uploads IN ACCESS EXCLUSIVE MODE');
    await w.fail();
    // The activity's three attempts, each cancelled by the statement timeout.
    await waitFor('three reads cancelled', () =>
      Promise.resolve(readErrors.length - errorsBefore >= 3 || undefined),
    );
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
  }
  const failed = await settledRecord(client, w.key, 1, 60_000);
  expect(readErrors.slice(errorsBefore)).toEqual(
    Array(3).fill(expect.stringMatching(/canceling statement due to statement timeout/)),
  );
  expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  expect(reasonsOf(failed)).not.toContain('FLAKY_TESTS_RETRIED');
  expect(failed.timeline.at(-1)?.detail).toEqual({
    kind: 'statuses',
    failed: ['ci/test'],
    missing: [],
    uploadsUnreadable: true,
  });
}, 90_000);
