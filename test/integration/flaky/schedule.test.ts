/**
 * The re-evaluation Schedule on the real Temporal dev server: ensureReevaluationSchedule creates it
 * once and updates it afterwards, and a triggered run executes flakyReevaluationWorkflow on a worker
 * that bundles the workflow file itself, healing a flaky test in the real database.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createFlakyActivities } from '../../../activities/flaky';
import { FLAKY_REEVALUATION_WORKFLOW_TYPE } from '../../../contract';
import { ensureReevaluationSchedule } from '../../../worker/reevaluation-schedule';
import type { ReevaluationSummary } from '../../../flaky/service';
import { requireTestEnv } from '../../support/env';
import { createHarness, type Harness, junit } from './harness';

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
  const taskQueue = `flaky-schedule-${Date.now()}`;
  const scheduleId = `flaky-reevaluation-${Date.now()}`;
  expect(await ensureReevaluationSchedule(client, taskQueue, { scheduleId, every: '1 hour' })).toBe(
    'created',
  );
  expect(await ensureReevaluationSchedule(client, taskQueue, { scheduleId, every: '30 minutes' })).toBe(
    'updated',
  );
  const handle = client.schedule.getHandle(scheduleId);
  try {
    const described = await handle.describe();
    expect(described.spec.intervals).toMatchObject([{ every: 30 * 60_000 }]);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: FLAKY_REEVALUATION_WORKFLOW_TYPE,
      taskQueue,
    });

    const workerConnection = await NativeConnection.connect({
      address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    });
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
      activities: createFlakyActivities({ pool: h.pool, now: () => h.clock.now }),
    });
    const summary = await worker.runUntil(async () => {
      await handle.trigger();
      const started = await waitFor(async () => {
        const { info } = await handle.describe();
        return info.recentActions[0]?.action.workflow;
      });
      return client.workflow
        .getHandle(started.workflowId, started.firstExecutionRunId)
        .result() as Promise<ReevaluationSummary>;
    });
    await workerConnection.close();
    expect(summary).toMatchObject({ repositories: 1, changed: 1 });
    const { rows } = await h.pool.query(`SELECT status, status_reason FROM test_cases WHERE name = 'Sched'`);
    expect(rows[0]).toEqual({ status: 'healthy', status_reason: 'recovered' });
  } finally {
    await handle.delete();
  }
}, 60_000);

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the scheduled run');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
