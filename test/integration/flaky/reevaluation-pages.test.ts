/**
 * The scheduled re-evaluation goes page by page (issue 27, ADR 0020), on the real Temporal service and
 * PostgreSQL. 25 repositories each hold one test last run 31 days ago, so the sweep evaluates each
 * one once and gives it the reason `stale` (healthy stays healthy: no status change); one repository's stored settings are corrupted
 * so that its sweep throws, and the first attempt of the second page's activity fails before doing
 * anything (a worker lost). With pages of 10, 2 at once and 2 pages per run:
 *  - every repository is swept exactly once in the run (the page activities' real calls hold each key
 *    once, and the summary evaluated one test per repository);
 *  - the failed attempt is retried and its page completes; the broken repository is counted and named,
 *    and the 24 others complete;
 *  - the run continues as new once (3 pages), and each run's history stays within the stated bound.
 * And the page activity alone: given the heartbeat details of a dead attempt, it sweeps only the
 * repositories after those it says are done.
 */
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createFlakyActivities, type RepositoryPageInput } from '../../../activities/flaky';
import {
  EMPTY_SUMMARY,
  FLAKY_REEVALUATION_WORKFLOW_TYPE,
  type FlakyReevaluationInput,
  reevaluationHistoryBound,
  type ReevaluationSummary,
} from '../../../contract';
import { requireTestEnv } from '../../support/env';
import { recordHistory } from '../../support/histories';
import { createHarness, type Harness, junit, REPO } from './harness';

const DAY = 86_400_000;
const REPOSITORIES = 25;
const name = (i: number) => `r${String(i).padStart(2, '0')}`;
const BROKEN = name(7);
const INPUT: FlakyReevaluationInput = { pageSize: 10, concurrency: 2, pagesPerRun: 2 };

let h: Harness;
let connection: Connection;
let workerConnection: NativeConnection;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test file in this jest worker installed the runtime already.
  }
  h = await createHarness('flaky_reeval_pages');
  for (let i = 0; i < REPOSITORIES; i += 1) {
    const res = await h.uploadJson(
      { upload_id: `u-${i}`, commit_sha: 'a0', repo: { ...REPO, name: name(i) } },
      [{ name: 'j.xml', content: junit({ Quiet: 'P' }) }],
    );
    if (res.statusCode !== 200) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  }
  h.tick(31 * DAY);
  await h.pool.query(`UPDATE repositories SET classification = '{"staleDays": -1}' WHERE name = $1`, [
    BROKEN,
  ]);
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  connection = await Connection.connect({ address });
  workerConnection = await NativeConnection.connect({ address });
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([connection?.close(), workerConnection?.close()]);
  await h?.close();
});

test('25 repositories in pages of 10: each swept once, a failed attempt retried, a broken one isolated, history bounded', async () => {
  const client = new Client({ connection, namespace: 'default' });
  const taskQueue = `flaky-reeval-pages-${Date.now()}`;
  const workflowId = `flaky-reeval-pages-${Date.now()}`;
  const keys = (await h.pool.query<{ pk: string }>(`SELECT pk FROM repositories ORDER BY pk`)).rows.map(
    (r) => r.pk,
  );
  expect(keys).toHaveLength(REPOSITORIES);
  const real = createFlakyActivities({ pool: h.pool, now: () => h.clock.now });
  const swept: string[] = [];
  let attempts = 0;
  let thrown = 0;
  const activities = {
    ...real,
    async reevaluateRepositoryPage(input: RepositoryPageInput) {
      attempts += 1;
      // The second page (from the 11th key on) fails its first attempt.
      if (thrown === 0 && input.pks[0] === keys[10]) {
        thrown += 1;
        throw new Error('worker lost (planted)');
      }
      swept.push(...input.pks);
      return real.reevaluateRepositoryPage(input);
    },
  };
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities,
  });
  const handle = await client.workflow.start(FLAKY_REEVALUATION_WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    args: [INPUT],
  });
  const summary = (await worker.runUntil(handle.result())) as ReevaluationSummary;

  expect(summary).toMatchObject({
    repositories: REPOSITORIES - 1,
    evaluated: REPOSITORIES - 1,
    failedRepositories: 1,
    failed: [`github.com/acme/${BROKEN} (organisation acme)`],
  });
  expect(thrown).toBe(1);
  expect(attempts).toBe(4);
  expect([...swept].sort((a, b) => Number(a) - Number(b))).toEqual(keys);

  const { rows } = await h.pool.query<{ name: string; status_reason: string }>(
    `SELECT r.name, t.status_reason FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
      ORDER BY r.name`,
  );
  expect(rows).toHaveLength(REPOSITORIES);
  for (const row of rows) {
    expect(row).toEqual(
      row.name === BROKEN
        ? { name: BROKEN, status_reason: expect.not.stringMatching(/^stale$/) }
        : { name: row.name, status_reason: 'stale' },
    );
  }

  // The chain of runs: 3 pages at 2 per run is one continue-as-new, then the last run.
  const runs: { runId: string; events: number }[] = [];
  let runId: string | undefined = handle.firstExecutionRunId;
  while (runId !== undefined) {
    const history: temporal.api.history.v1.IHistory = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events = history.events ?? [];
    runs.push({ runId, events: events.length });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  expect(runs).toHaveLength(2);
  for (const run of runs)
    expect(run.events).toBeLessThanOrEqual(reevaluationHistoryBound(INPUT.pagesPerRun!));
  recordHistory('flaky-reevaluation-pages', workflowId, runs[0]!.runId);
}, 120_000);

test('a retried page goes on after the repositories its dead attempt finished (heartbeat details)', async () => {
  const keys = (await h.pool.query<{ pk: string }>(`SELECT pk FROM repositories ORDER BY pk`)).rows.map(
    (r) => r.pk,
  );
  const page = keys.slice(0, 10); // holds the broken repository, 8th
  const activities = createFlakyActivities({ pool: h.pool, now: () => h.clock.now });
  const carried: ReevaluationSummary = {
    ...EMPTY_SUMMARY,
    repositories: 7,
    evaluated: 7,
    failedRepositories: 1,
    failed: ['earlier'],
  };
  const beats: unknown[] = [];
  const env = new MockActivityEnvironment({ heartbeatDetails: { done: 8, summary: carried } });
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const resumed = await env.run(activities.reevaluateRepositoryPage, { pks: page });
  // Only the last two were swept: the broken one (8th) was not met again.
  expect(resumed).toEqual({ ...carried, repositories: 9 });
  expect(beats.at(-1)).toMatchObject({ done: 10, summary: { repositories: 9 } });

  const fresh = await new MockActivityEnvironment().run(activities.reevaluateRepositoryPage, { pks: page });
  expect(fresh).toMatchObject({ repositories: 9, failedRepositories: 1 });
});
