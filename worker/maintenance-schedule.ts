/**
 * ensureMaintenanceSchedule(client, taskQueue): the Temporal Schedule that runs
 * flakyMaintenanceWorkflow (hourly by default: partitions ahead, retention; ADR 0019), created on the
 * first call and brought up to date on every later one, as the re-evaluation's
 * (reevaluation-schedule.ts). main.ts calls it at every worker start, before polling.
 *
 * Policies: a run still going when the next is due is skipped (overlap SKIP: two runs never delete
 * or drop at once), and after an outage only the latest missed run is caught up, within an hour.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import { FLAKY_MAINTENANCE_WORKFLOW_TYPE } from '../contract';

export const MAINTENANCE_SCHEDULE_ID = 'railyard-flaky-maintenance';

export interface MaintenanceScheduleOptions {
  readonly scheduleId?: string;
  /** A Temporal duration such as '1 hour' or '15 minutes'. */
  readonly every?: string;
}

export async function ensureMaintenanceSchedule(
  client: Client,
  taskQueue: string,
  options: MaintenanceScheduleOptions = {},
): Promise<'created' | 'updated'> {
  const scheduleId = options.scheduleId ?? MAINTENANCE_SCHEDULE_ID;
  const spec = { intervals: [{ every: (options.every ?? '1 hour') as `${number} ${string}` }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: FLAKY_MAINTENANCE_WORKFLOW_TYPE,
    workflowId: `${scheduleId}-run`,
    taskQueue,
    args: [],
    workflowExecutionTimeout: '1 hour',
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({
    ...previous,
    spec,
    action: { ...previous.action, ...action },
    policies: { ...previous.policies, ...policies },
  }));
  return 'updated';
}
