/**
 * The maintenance Schedule on the real Temporal dev server: ensureMaintenanceSchedule creates it once
 * and updates it afterwards, and a triggered run executes flakyMaintenanceWorkflow on a worker, which
 * makes the partitions ahead and drops the ones past retention in the real database.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { FLAKY_MAINTENANCE_WORKFLOW_TYPE } from '../../../contract';
import type { MaintenanceSummary } from '../../../flaky/store/result-maintenance';
import { listResultPartitions } from '../../../flaky/store/result-partitions';
import { ensureMaintenanceSchedule } from '../../../worker/maintenance-schedule';
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
  const summary = await ensureTwiceThenRun<MaintenanceSummary>(client, {
    ensure: ensureMaintenanceSchedule,
    workflowType: FLAKY_MAINTENANCE_WORKFLOW_TYPE,
    prefix: 'flaky-maintenance',
    pool: h.pool,
    now: () => h.clock.now,
  });
  expect(summary.partitionsDropped).toContain('test_results_p20330105');
  expect(summary.partitionsMade).toHaveLength(14);
  const names = (await listResultPartitions(h.pool)).map((p) => p.name);
  expect(names).not.toContain('test_results_p20330105');
  expect(names).toContain('test_results_p20330415');
}, 60_000);
