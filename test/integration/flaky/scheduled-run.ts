/**
 * For the Schedule tests (schedule.test.ts, maintenance-schedule.test.ts): a Schedule's `ensure` made
 * twice (created, then updated to a 30-minute period) and checked as Temporal describes it, then one
 * run triggered on a worker of the test's own task queue with the flaky-test activities, its result
 * returned. The Schedule is deleted however the run ends.
 */
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Pool } from 'pg';
import { createFlakyActivities } from '../../../activities/flaky';
import { requireTestEnv } from '../../support/env';

type Ensure = (
  client: Client,
  taskQueue: string,
  options: { scheduleId: string; every: string },
) => Promise<'created' | 'updated'>;

export async function ensureTwiceThenRun<T>(
  client: Client,
  spec: { ensure: Ensure; workflowType: string; prefix: string; pool: Pool; now: () => Date },
): Promise<T> {
  const taskQueue = `${spec.prefix}-${Date.now()}`;
  const scheduleId = `${spec.prefix}-schedule-${Date.now()}`;
  expect(await spec.ensure(client, taskQueue, { scheduleId, every: '1 hour' })).toBe('created');
  expect(await spec.ensure(client, taskQueue, { scheduleId, every: '30 minutes' })).toBe('updated');
  const handle = client.schedule.getHandle(scheduleId);
  try {
    const described = await handle.describe();
    expect(described.spec.intervals).toMatchObject([{ every: 30 * 60_000 }]);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: spec.workflowType,
      taskQueue,
    });
    const connection = await NativeConnection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
    try {
      const worker = await Worker.create({
        connection,
        taskQueue,
        workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
        activities: createFlakyActivities({ pool: spec.pool, now: spec.now }),
      });
      return await worker.runUntil(async () => {
        await handle.trigger();
        const started = await waitFor(async () => {
          const { info } = await handle.describe();
          return info.recentActions[0]?.action.workflow;
        });
        return client.workflow
          .getHandle(started.workflowId, started.firstExecutionRunId)
          .result() as Promise<T>;
      });
    } finally {
      await connection.close();
    }
  } finally {
    await handle.delete();
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the scheduled run');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
