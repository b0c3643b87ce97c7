/**
 * The spec's quarantine rule 2 through the merge queue and the executor: a quarantined test's failure
 * counts as a pass, so a PR whose test command fails only in quarantined tests merges
 * (QUARANTINED_FAILURES_IGNORED), and the same PR fails when a failing test is not quarantined.
 *
 * Real stack, one per file: Temporal's dev server, a worker in this process (the bundled workflows, the
 * real activities with the flaky-test service judging each run as worker/main.ts wires it), an executor
 * running the command in its sandbox, PostgreSQL and git. Each test has its own repository, organisation
 * and queue. The repository's command writes JUnit files the way a test runner does; which tests fail
 * is what the PR brings in `fixtures/`. Issue 28: a failure only in a test known flaky (and not
 * quarantined) is run again, only that test, before it counts (engine/flaky-retry.ts); a queue judged by
 * CI's statuses reads the failed tests CI uploaded for its test commit (workflows/queue/ci-uploads.ts):
 * here CI is the test itself, signalling statuses and uploading results as CI's upload API would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createActivities } from '../../activities';
import { JUNIT_LEFT_OUT, judgeTestsWith } from '../../test-runs/judge';
import { DEFAULT_JUNIT_LIMITS } from '../../executor';
import {
  commitStatusSignal,
  getPullRequestQuery,
  getTestRunQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  getAdmissionsQuery,
  type PullRequestRecord,
  type QueueKey,
  type QueueWorkflowInput,
} from '../../contract';
import { explainState } from '../../contract/pr-reasons';
import { parseJunitText } from '../../flaky/junit';
import { createFlakyStore, type FlakyStore } from '../../flaky/service';
import { createLocalGitHost } from '../../git/local-git-host';
import { createProcessBroker } from '../../platform/process-runner';
import { createPool } from '../../stores/db';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { requireTestEnv } from '../support/env';
import { startTestExecutor, type TestExecutor } from '../support/executor';
import { createRepoWithMain, type GitFixture } from '../support/git-fixture';
import { settledRecord, waitFor } from '../support/pr-waiting';
import { cartJunitReport } from '../support/cart-junit';

/**
 * Copies the PR's reports where a runner writes them, and fails when any of them has a failure. Told to
 * run only some tests (RAILYARD_ONLY_TESTS, a flaky retry), it reports `fixtures/retry/` when the PR has
 * it: what those tests do when run again.
 */
const COMMAND =
  'src=fixtures; if [ -n "$RAILYARD_ONLY_TESTS" ] && [ -d fixtures/retry ]; then src=fixtures/retry; fi; ' +
  'mkdir -p build/test-results && cp $src/*.xml build/test-results/ && ! grep -qs "<failure" build/test-results/*.xml';
const CONFIG = JSON.stringify({ version: 1, command: COMMAND, junitGlobs: ['build/test-results/*.xml'] });

const CI_UPLOAD_WAIT_MS = 3_000;
let root: string;
let pool: Pool;
let flaky: FlakyStore;
/**
 * Where the worker reads CI's uploads (a CI-judged run's failed tests): `flaky`, except in the story
 * of a store that fails, where it is a store whose PostgreSQL connections cannot see railyard's tables.
 */
let ciReads: FlakyStore;
let brokenPool: Pool | undefined;
let client: Client;
let connection: Connection;
let nativeConnection: NativeConnection;
let executor: TestExecutor;
let worker: Worker;
let running: Promise<void>;
let taskQueue: string;
// git runs from a small broker process, as in the worker, not forked from this large jest worker.
const broker = createProcessBroker();
const fixtures: GitFixture[] = [];

beforeAll(async () => {
  // Activities of the failing runs fail on purpose; their warnings are noise here.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  root = mkdtempSync(path.join(tmpdir(), 'railyard-quarantine-'));
  pool = createPool(requireTestEnv('TEST_DATABASE_URL'), { max: 4 });
  flaky = createFlakyStore(pool);
  ciReads = flaky;
  nativeConnection = await NativeConnection.connect({ address });
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  taskQueue = `e2e-quarantine-${randomUUID()}`;
  executor = await startTestExecutor({ controlTaskQueue: taskQueue, pool });
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createActivities({
      workerIdentity: 'e2e-quarantine',
      gitHost: createLocalGitHost({ root, runner: broker }),
      client,
      taskQueue,
      pool,
      allowPrivateWebhookUrls: true,
      judgeTests: judgeTestsWith(flaky),
      // A short wait for CI's upload, so the story without one ends soon.
      uploadedFailures: {
        read: (...args) => ciReads.failedTestsOfCommit(...args),
        uploadsEver: (...args) => ciReads.hasUploads(...args),
        waitMs: CI_UPLOAD_WAIT_MS,
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
  await executor?.close();
  await connection?.close();
  await nativeConnection?.close();
  await pool?.end();
  await brokenPool?.end();
  for (const fx of fixtures) fx.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A JUnit report of suite `cart` (test/support/cart-junit.ts). */
const report = (tests: Record<string, string>) =>
  cartJunitReport(tests, '<failure message="expected 2, got 3">at src/cart.test.ts:12</failure>');

interface World {
  key: QueueKey;
  fx: GitFixture;
  slug: string;
  /** Results of a CI run on main, ingested as an upload (what makes the tests known and classified). */
  uploadOnMain(tests: Record<string, string>): Promise<void>;
  quarantine(opts: { enabled: boolean; autoQuarantine?: boolean }): Promise<void>;
  /** Sets a test's override, by name; the test must be known. */
  override(name: string, override: 'ALWAYS_QUARANTINE' | 'NEVER_QUARANTINE'): Promise<void>;
  /** Opens PR `n` adding the reports in `files` (fixtures/<name>) and submits it. */
  submitPr(n: number, files: Record<string, string>): Promise<void>;
  settled(n: number): Promise<PullRequestRecord>;
  mainLog(): string[];
  /** A CI-judged queue: PR `n`'s run in progress once it is not `after`, with its test commit. */
  ciRun(n: number, after?: string): Promise<{ runId: string; sha: string; branch: string }>;
  /** CI's upload of results for `sha` (as CI's upload API takes them), in `organisationId` (default ours). */
  uploadFor(
    sha: string,
    branch: string,
    tests: Record<string, string>,
    organisationId?: string,
  ): Promise<void>;
  /** CI reports the required status of `sha`. */
  status(sha: string, state: 'success' | 'failure'): Promise<void>;
}

/** A new organisation (its row only): uploads in it are not the queue's. */
async function newOrganisation(): Promise<{ id: string; slug: string }> {
  const id = randomUUID();
  const slug = `q-${id.slice(0, 8)}`;
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [id, slug]);
  return { id, slug };
}

/**
 * A new repository with the test command on main, a new organisation owning it, and its queue; with
 * `requiredStatuses`, CI's statuses judge its runs instead of the command.
 */
async function world(requiredStatuses?: string[]): Promise<World> {
  const repo = { host: 'github.com', owner: 'acme', name: `cart-${randomUUID().slice(0, 8)}` };
  const fx = await createRepoWithMain(repo, root);
  fixtures.push(fx);
  fx.commit('add merge-queue config', { '.railyard/merge-queue.json': CONFIG });
  fx.pushBranch('main', fx.git('rev-parse', 'HEAD'));
  const initial = Number(fx.bareGit('rev-list', '--count', 'main'));
  const { id: organisationId, slug } = await newOrganisation();
  const claimed = await createRepositoryOwnerStore(pool).claim(organisationId, repo, 'operator');
  if (claimed.kind !== 'claimed') throw new Error(`repository not claimed: ${claimed.kind}`);
  const key: QueueKey = { organisationId, repo, targetBranch: 'main' };
  const handle = client.workflow.getHandle(queueWorkflowId(key));
  await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
    workflowId: queueWorkflowId(key),
    taskQueue,
    args: [
      {
        key,
        config: { concurrency: 1 },
        runner: requiredStatuses ? { requiredStatuses } : {},
      } satisfies QueueWorkflowInput,
    ],
  });
  let uploads = 0;
  const slugs = new Map([[organisationId, slug]]);
  return {
    key,
    fx,
    slug,
    async uploadOnMain(tests) {
      uploads += 1;
      const created = await flaky.ingest({
        organisationId,
        organisationSlug: slug,
        repository: repo,
        metadata: {
          uploadId: `main-${uploads}`,
          commitSha: fx.tip('main'),
          branch: 'main',
          attempt: 1,
          variant: '',
        },
        files: [await parseJunitText(report(tests), { fileName: 'build/test-results/cart.xml' })],
      });
      expect(created.created).toBe(true);
    },
    async quarantine({ enabled, autoQuarantine = false }) {
      await flaky.updateSettings(organisationId, repo, { quarantineEnabled: enabled, autoQuarantine }, 'e2e');
    },
    async override(name, override) {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT t.id FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
          WHERE r.organisation_id = $1 AND r.name = $2 AND t.name = $3`,
        [organisationId, repo.name, name],
      );
      expect(rows).toHaveLength(1);
      const repository = await flaky.findRepository(organisationId, repo);
      expect(await flaky.setQuarantineOverride(repository!, rows[0]!.id, { override, actor: 'e2e' })).toBe(
        true,
      );
    },
    async submitPr(n, files) {
      fx.git('fetch', '--quiet', 'origin');
      fx.branchFrom(`pr-${n}`, 'origin/main');
      const sha = fx.commit(
        `PR ${n}`,
        Object.fromEntries(Object.entries(files).map(([name, xml]) => [`fixtures/${name}`, xml])),
      );
      fx.pushPr(n, sha);
      const { submissionId } = await handle.executeUpdate(submitUpdate, {
        args: [{ pr: n, priority: null, noBatch: false }],
      });
      const admitted = await waitFor(`PR #${n} admitted`, async () => {
        const state = (await handle.query(getAdmissionsQuery, [submissionId]))[submissionId];
        return state?.state === 'pending' ? undefined : state;
      });
      expect(admitted.state).not.toBe('rejected');
    },
    settled: (n) => settledRecord(client, key, n, 90_000),
    mainLog: () => fx.bareGit('log', '--reverse', '--format=%s', 'main').split('\n').slice(initial),
    async ciRun(n, after) {
      const runId = await waitFor(`PR #${n} testing in a new run`, async () => {
        const record = await client.workflow.getHandle(prWorkflowId(key, n)).query(getPullRequestQuery);
        const id = record.state === 'testing' ? record.timeline.at(-1)?.testRunId : undefined;
        return id && id !== after ? id : undefined;
      });
      const run = await waitFor(`run ${runId} built`, async () => {
        const d = await handle.query(getTestRunQuery, runId);
        return d?.testBranchSha && d.status === 'in_progress' ? d : undefined;
      });
      return { runId, sha: run.testBranchSha!, branch: run.testBranch };
    },
    async uploadFor(sha, branch, tests, org = organisationId) {
      uploads += 1;
      if (!slugs.has(org)) {
        const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
          org,
        ]);
        slugs.set(org, rows[0]!.slug);
      }
      await flaky.ingest({
        organisationId: org,
        organisationSlug: slugs.get(org)!,
        repository: repo,
        metadata: { uploadId: `ci-${uploads}`, commitSha: sha, branch, attempt: 1, variant: '' },
        files: [await parseJunitText(report(tests), { fileName: 'build/test-results/cart.xml' })],
      });
    },
    async status(sha, state) {
      await handle.signal(commitStatusSignal, {
        sha,
        context: requiredStatuses![0]!,
        state,
        url: null,
        description: null,
      });
    },
  };
}

/** The sentence the API, webhooks and comment show for the record's latest transition. */
const sentence = (record: PullRequestRecord) =>
  explainState({
    state: record.state,
    reason: record.reason,
    ...(record.timeline.at(-1)?.detail ? { detail: record.timeline.at(-1)!.detail! } : {}),
    targetBranch: 'main',
  });
const reasonsOf = (record: PullRequestRecord) => record.timeline.map((t) => t.reason);
/** The failing tests the failed transition names (quarantined ones are left out of it). */
const failedTestsOf = (record: PullRequestRecord) => {
  const detail = record.timeline.at(-1)?.detail;
  if (detail?.kind === 'test_evidence') return detail.tests;
  return detail?.kind === 'command_failed' ? detail.failedTests : null;
};

test('a PR failing only in a test quarantined by its override merges', async () => {
  const w = await world();
  await w.uploadOnMain({ adds: 'P', totals: 'P' });
  await w.quarantine({ enabled: true });
  await w.override('totals', 'ALWAYS_QUARANTINE');

  await w.submitPr(1, { 'cart.xml': report({ adds: 'P', totals: 'F' }) });
  const merged = await w.settled(1);
  expect(merged.state).toBe('merged');
  expect(reasonsOf(merged)).toContain('QUARANTINED_FAILURES_IGNORED');
  expect(w.mainLog()).toEqual(['PR 1 (#1)']);
}, 120_000);

test('a PR failing only in a test quarantined by the rule (auto-quarantine of a flaky test) merges', async () => {
  const w = await world();
  // A failure and a pass of one commit: same-commit disagreement makes the test flaky.
  await w.uploadOnMain({ adds: 'P', totals: 'FP' });
  await w.quarantine({ enabled: true, autoQuarantine: true });

  await w.submitPr(1, { 'cart.xml': report({ adds: 'P', totals: 'F' }) });
  const merged = await w.settled(1);
  expect(merged.state).toBe('merged');
  expect(reasonsOf(merged)).toContain('QUARANTINED_FAILURES_IGNORED');
  expect(w.mainLog()).toEqual(['PR 1 (#1)']);
}, 120_000);

test('the same PR fails when its failing test is not quarantined (quarantine off, or NEVER_QUARANTINE)', async () => {
  const w = await world();
  const mainSha = w.fx.tip('main');
  await w.uploadOnMain({ adds: 'P', totals: 'FP' });
  // Flaky, but quarantining is off for the repository.
  await w.quarantine({ enabled: false, autoQuarantine: true });
  await w.submitPr(1, { 'cart.xml': report({ adds: 'P', totals: 'F' }) });
  const off = await w.settled(1);
  expect(off).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(failedTestsOf(off)).toEqual(['cart › totals']);
  // Known flaky, so run again once before it counted (flakyRetries 1); both runs are named.
  expect(reasonsOf(off)).toContain('FLAKY_TESTS_RETRIED');
  expect(off.convictedBy).toHaveLength(2);
  // Where the test last passed on the target branch (its result uploaded from main).
  expect(off.timeline.at(-1)?.detail).toMatchObject({ kind: 'test_evidence', passedOnTarget: mainSha });
  expect(sentence(off)).toContain(`it passed on main at ${mainSha.slice(0, 12)}`);

  // On, but the override keeps this flaky test out of quarantine.
  await w.quarantine({ enabled: true, autoQuarantine: true });
  await w.override('totals', 'NEVER_QUARANTINE');
  await w.submitPr(2, { 'cart.xml': report({ adds: 'P', totals: 'F' }) });
  const never = await w.settled(2);
  expect(never).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(failedTestsOf(never)).toEqual(['cart › totals']);
  expect(w.mainLog()).toEqual([]);
}, 120_000);

test('a PR failing only in a known-flaky test is retried, that test alone, and merges when it passes', async () => {
  const w = await world();
  await w.uploadOnMain({ adds: 'P', totals: 'FP' });
  await w.quarantine({ enabled: false });
  await w.submitPr(1, {
    'cart.xml': report({ adds: 'P', totals: 'F' }),
    'retry/cart.xml': report({ totals: 'P' }),
  });
  const merged = await w.settled(1);
  expect(merged.state).toBe('merged');
  expect(reasonsOf(merged)).toEqual(
    expect.arrayContaining(['FLAKY_TESTS_RETRIED', 'FLAKY_TESTS_PASSED_ON_RETRY']),
  );
  expect(w.mainLog()).toEqual(['PR 1 (#1)']);
}, 120_000);

test('a quarantined failure does not excuse a failing test that is not quarantined', async () => {
  const w = await world();
  await w.uploadOnMain({ adds: 'P', totals: 'P' });
  await w.quarantine({ enabled: true });
  await w.override('totals', 'ALWAYS_QUARANTINE');

  await w.submitPr(1, { 'cart.xml': report({ adds: 'F', totals: 'F' }) });
  const failed = await w.settled(1);
  expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(reasonsOf(failed)).not.toContain('QUARANTINED_FAILURES_IGNORED');
  expect(failedTestsOf(failed)).toEqual(['cart › adds']);
  expect(w.mainLog()).toEqual([]);
  // The run's stored log ends with its failing tests and their failures (the command printed none).
  const { rows } = await pool.query<{ log: string }>(
    `SELECT convert_from(content, 'UTF8') AS log FROM test_run_logs WHERE test_run_id = $1`,
    [failed.timeline.at(-1)?.testRunId],
  );
  expect(rows[0]?.log).toMatch(
    /# failed: exit code 1 after [^\n]+\n# failing tests from the run's JUnit reports: 2 \(1 quarantined\)\n# {3}cart › adds: expected 2, got 3\n# {3}cart › totals \(quarantined\): expected 2, got 3\n$/,
  );
}, 120_000);

test('a quarantined failure does not excuse a JUnit report that could not be read', async () => {
  const w = await world();
  await w.uploadOnMain({ adds: 'P', totals: 'P' });
  await w.quarantine({ enabled: true });
  await w.override('totals', 'ALWAYS_QUARANTINE');

  // The runner died while writing its second report: whatever failed in it cannot be named.
  await w.submitPr(1, {
    'cart.xml': report({ totals: 'F' }),
    'checkout.xml':
      '<testsuites><testsuite name="checkout"><testcase classname="checkout" name="pays"><failure',
  });
  const failed = await w.settled(1);
  expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(failedTestsOf(failed)).toEqual([expect.stringMatching(/^unreadable JUnit report: .*checkout\.xml/)]);
  expect(w.mainLog()).toEqual([]);
}, 120_000);

test('a quarantined failure does not excuse JUnit reports the executor left out (over its file count)', async () => {
  const w = await world();
  await w.uploadOnMain({ adds: 'P', totals: 'P' });
  await w.quarantine({ enabled: true });
  await w.override('totals', 'ALWAYS_QUARANTINE');

  // Reports are collected in path order up to maxFiles: the last one, with a real failure, is left out.
  const files: Record<string, string> = { 'a-cart.xml': report({ totals: 'F' }) };
  for (let i = 0; i < DEFAULT_JUNIT_LIMITS.maxFiles; i += 1)
    files[`z-${String(i).padStart(3, '0')}.xml`] = report({
      [`case ${i}`]: i === DEFAULT_JUNIT_LIMITS.maxFiles - 1 ? 'F' : 'P',
    });
  await w.submitPr(1, files);
  const failed = await w.settled(1);
  expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_COMMAND_FAILED' });
  expect(failedTestsOf(failed)).toEqual([JUNIT_LEFT_OUT]);
  expect(w.mainLog()).toEqual([]);
}, 120_000);

test('a CI-judged run reads the failed tests CI uploaded for its commit: flaky retried, unknown named, none waited for', async () => {
  const w = await world(['ci/test']);
  const mainSha = w.fx.tip('main');
  await w.uploadOnMain({ adds: 'P', totals: 'FP', pays: 'P' });
  await w.quarantine({ enabled: false });

  // CI failed only in a test known flaky: run again (CI runs it all again), and merged when it passes.
  await w.submitPr(1, { 'pr.txt': '1' });
  const first = await w.ciRun(1);
  await w.uploadFor(first.sha, first.branch, { adds: 'P', totals: 'F' });
  await w.status(first.sha, 'failure');
  const retry = await w.ciRun(1, first.runId);
  await w.status(retry.sha, 'success');
  const merged = await w.settled(1);
  expect(merged.state).toBe('merged');
  expect(reasonsOf(merged)).toEqual(
    expect.arrayContaining(['FLAKY_TESTS_RETRIED', 'FLAKY_TESTS_PASSED_ON_RETRY']),
  );

  // CI failed in a test the service does not know as flaky: ejected, the test named, with the commit
  // of main it last passed on (a later pass on another branch is not main's).
  await w.uploadFor('f'.repeat(40), 'feature', { pays: 'P' });
  await w.submitPr(2, { 'pr.txt': '2' });
  const second = await w.ciRun(2);
  await w.uploadFor(second.sha, second.branch, { adds: 'P', pays: 'F' });
  await w.status(second.sha, 'failure');
  const ejected = await w.settled(2);
  expect(ejected).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  expect(reasonsOf(ejected)).not.toContain('FLAKY_TESTS_RETRIED');
  expect(ejected.timeline.at(-1)?.detail).toMatchObject({
    kind: 'test_evidence',
    tests: ['cart › pays'],
    passedOnTarget: mainSha,
  });
  expect(sentence(ejected)).toMatch(
    new RegExp(`\`cart › pays\` failed in run .*; it passed on main at ${mainSha.slice(0, 12)}`),
  );

  // No upload of ours within the wait (another organisation's, for the same repository name and commit,
  // naming our flaky test, is not ours to read): the run as a whole decided, and the record says why.
  await w.submitPr(3, { 'pr.txt': '3' });
  const third = await w.ciRun(3);
  const other = await newOrganisation();
  await w.uploadFor(third.sha, third.branch, { totals: 'F' }, other.id);
  await w.status(third.sha, 'failure');
  const undecided = await w.settled(3);
  expect(undecided).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  expect(reasonsOf(undecided)).not.toContain('FLAKY_TESTS_RETRIED');
  expect(undecided.timeline.at(-1)?.detail).toMatchObject({
    kind: 'statuses',
    failed: ['ci/test'],
    noUploadAfterSeconds: CI_UPLOAD_WAIT_MS / 1000,
  });
  expect(sentence(undecided)).toContain('CI uploaded no test results for the test commit within 3 seconds');
  expect(w.mainLog()).toEqual(['PR 1 (#1)']);
}, 120_000);

test('a CI-judged run whose uploads cannot be read fails by its statuses and says so: never a pass, never a silent retry', async () => {
  const w = await world(['ci/test']);
  await w.uploadOnMain({ adds: 'P', totals: 'FP' });
  await w.quarantine({ enabled: false });

  // CI failed only in a test known flaky (readable, the run would be retried, as the story above shows),
  // but every read of the flaky-test store fails for good: a real PostgreSQL error on each attempt
  // (its connections search a schema without railyard's tables: relation does not exist).
  await w.submitPr(1, { 'pr.txt': '1' });
  const run = await w.ciRun(1);
  await w.uploadFor(run.sha, run.branch, { adds: 'P', totals: 'F' });
  const url = new URL(requireTestEnv('TEST_DATABASE_URL'));
  url.searchParams.set('options', '-c search_path=railyard_no_such_schema');
  brokenPool = createPool(url.toString(), { max: 2 });
  await expect(brokenPool.query('SELECT 1 FROM uploads LIMIT 1')).rejects.toThrow(/does not exist/);
  ciReads = createFlakyStore(brokenPool);
  try {
    await w.status(run.sha, 'failure');
    const failed = await w.settled(1);
    expect(failed).toMatchObject({ state: 'failed', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    expect(reasonsOf(failed)).not.toContain('FLAKY_TESTS_RETRIED');
    expect(failed.timeline.at(-1)?.detail).toEqual({
      kind: 'statuses',
      failed: ['ci/test'],
      missing: [],
      uploadsUnreadable: true,
    });
    expect(sentence(failed)).toContain(
      'railyard could not read the test results CI uploaded for the test commit',
    );
    expect(w.mainLog()).toEqual([]);
  } finally {
    ciReads = flaky;
  }
}, 120_000);
