/**
 * The maintenance Schedule on the real Temporal dev server: ensureMaintenanceSchedule creates it once
 * and updates it afterwards, and a triggered run executes flakyMaintenanceWorkflow on a worker, which
 * makes the partitions ahead and drops the ones past retention in the real database.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createFlakyActivities } from '../../../activities/flaky';
import { FLAKY_MAINTENANCE_WORKFLOW_TYPE } from '../../../contract';
import type { MaintenanceSummary } from '../../../flaky/store/result-maintenance';
import { listResultPartitions } from '../../../flaky/store/result-partitions';
import { ensureMaintenanceSchedule } from '../../../worker/maintenance-schedule';
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
  h = await createHarness('flaky_maintenance', new Date('2033-01-05T12:00:00Z'));
  connection = await Connection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  client = new Client({ connection, namespace: 'default' });
  await h.uploadJson({ upload_id: 'm-0' }, [{ name: 'j.xml', content: junit({ Old: 'F' }) }]);
  h.tick(100 * DAY);
});
afterAll(async () => {
  await connection.close();
  await h.close();
});

test('the schedule is created once, updated after, and its run makes and drops partitions', async () => {
  const taskQueue = `flaky-maintenance-${Date.now()}`;
  const scheduleId = `flaky-maintenance-${Date.now()}`;
  expect(await ensureMaintenanceSchedule(client, taskQueue, { scheduleId, every: '1 hour' })).toBe('created');
  expect(await ensureMaintenanceSchedule(client, taskQueue, { scheduleId, every: '30 minutes' })).toBe(
    'updated',
  );
  const handle = client.schedule.getHandle(scheduleId);
  try {
    const described = await handle.describe();
    expect(described.spec.intervals).toMatchObject([{ every: 30 * 60_000 }]);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: FLAKY_MAINTENANCE_WORKFLOW_TYPE,
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
        .result() as Promise<MaintenanceSummary>;
    });
    await workerConnection.close();
    expect(summary.partitionsDropped).toContain('test_results_p20330105');
    expect(summary.partitionsMade).toHaveLength(14);
    const names = (await listResultPartitions(h.pool)).map((p) => p.name);
    expect(names).not.toContain('test_results_p20330105');
    expect(names).toContain('test_results_p20330415');
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
