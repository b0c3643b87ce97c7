/**
 * ensurePeriodicSchedule against the real Temporal dev server when workers start side by side: a
 * Schedule removed between the create that found it and the update (a worker without a GitHub App
 * removes the reconciliation Schedule another worker is bringing up to date) is made again, and the
 * start does not fail. CI once failed a replicas run on exactly this (ScheduleNotFoundError).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ensurePeriodicSchedule, type PeriodicSchedule } from '../../../worker/periodic-schedule';
import { requireTestEnv } from '../../support/env';

let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  client = new Client({ connection, namespace: 'default' });
});
afterAll(() => connection.close());

function scheduleOf(scheduleId: string, every: PeriodicSchedule['every']): PeriodicSchedule {
  return {
    scheduleId,
    workflowType: 'noSuchWorkflow',
    taskQueue: `periodic-${scheduleId}`,
    every,
    executionTimeout: '5 minutes',
    catchupWindow: every,
  };
}

/** The real client, except that the first `create` that finds the Schedule deletes it before saying so. */
function removingOnce(real: Client): { client: Client; removed: () => boolean } {
  let removed = false;
  const schedule = {
    getHandle: (id: string) => real.schedule.getHandle(id),
    async create(options: Parameters<Client['schedule']['create']>[0]) {
      try {
        return await real.schedule.create(options);
      } catch (err) {
        if (!removed) {
          removed = true;
          await real.schedule.getHandle(options.scheduleId).delete();
        }
        throw err;
      }
    },
  };
  return { client: { schedule } as unknown as Client, removed: () => removed };
}

test('a Schedule removed between the create and the update is made again with the new settings', async () => {
  const scheduleId = `periodic-race-${randomUUID()}`;
  expect(await ensurePeriodicSchedule(client, scheduleOf(scheduleId, '1 hour'))).toBe('created');
  const racing = removingOnce(client);
  expect(await ensurePeriodicSchedule(racing.client, scheduleOf(scheduleId, '20 minutes'))).toBe('created');
  expect(racing.removed()).toBe(true);
  const handle = client.schedule.getHandle(scheduleId);
  const described = await handle.describe();
  expect(described.spec.intervals).toMatchObject([{ every: 20 * 60_000 }]);
  await handle.delete();
});
