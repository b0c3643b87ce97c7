/**
 * The re-evaluation Schedule on the real Temporal dev server: ensureReevaluationSchedule creates it
 * once and updates it afterwards, and a triggered run executes flakyReevaluationWorkflow on a worker
 * that bundles the workflow file itself, healing a flaky test in the real database.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { FLAKY_REEVALUATION_WORKFLOW_TYPE } from '../../../contract';
import { ensureReevaluationSchedule } from '../../../worker/reevaluation-schedule';
import type { ReevaluationSummary } from '../../../flaky/service';
import { requireTestEnv } from '../../support/env';
import { createHarness, type Harness, junit } from './harness';
import { ensureTwiceThenRun } from './scheduled-run';

const DAY = 86_400_000;
let h: Harness;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test file in this jest worker installed the runtime already.
  }
  h = await createHarness('flaky_schedule');
  connection = await Connection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  client = new Client({ connection, namespace: 'default' });
  // A flaky test (fail then pass on one commit) followed by ten passes: healthy once 7 days pass.
  await h.uploadJson({ upload_id: 's-0', commit_sha: 's0' }, [
    { name: 'j.xml', content: junit({ Sched: 'FP' }) },
  ]);
  for (let i = 1; i <= 10; i += 1) {
    h.tick(3_600_000);
    await h.uploadJson({ upload_id: `s-${i}`, commit_sha: `s${i}` }, [
      { name: 'j.xml', content: junit({ Sched: 'P' }) },
    ]);
  }
  h.tick(8 * DAY);
});
afterAll(async () => {
  await connection.close();
  await h.close();
});

test('the schedule is created once, updated after, and its run heals the test', async () => {
  const summary = await ensureTwiceThenRun<ReevaluationSummary>(client, {
    ensure: ensureReevaluationSchedule,
    workflowType: FLAKY_REEVALUATION_WORKFLOW_TYPE,
    prefix: 'flaky-reevaluation',
    pool: h.pool,
    now: () => h.clock.now,
  });
  expect(summary).toMatchObject({ repositories: 1, changed: 1 });
  const { rows } = await h.pool.query(`SELECT status, status_reason FROM test_cases WHERE name = 'Sched'`);
  expect(rows[0]).toEqual({ status: 'healthy', status_reason: 'recovered' });
}, 60_000);
