/**
 * ensureMaintenanceSchedule(client, taskQueue): the Temporal Schedule that runs
 * flakyMaintenanceWorkflow (hourly by default: partitions ahead, retention; ADR 0019), created on the
 * first call and brought up to date on every later one (periodic-schedule.ts). main.ts calls it at
 * every worker start, before polling. Overlap SKIP: two runs never delete or drop at once.
 */
import type { Client } from '@temporalio/client';
import { FLAKY_MAINTENANCE_WORKFLOW_TYPE } from '../contract';
import { ensurePeriodicSchedule } from './periodic-schedule';

export const MAINTENANCE_SCHEDULE_ID = 'railyard-flaky-maintenance';

export interface MaintenanceScheduleOptions {
  readonly scheduleId?: string;
  /** A Temporal duration such as '1 hour' or '15 minutes'. */
  readonly every?: string;
}

export function ensureMaintenanceSchedule(
  client: Client,
  taskQueue: string,
  options: MaintenanceScheduleOptions = {},
): Promise<'created' | 'updated'> {
  return ensurePeriodicSchedule(client, {
    scheduleId: options.scheduleId ?? MAINTENANCE_SCHEDULE_ID,
    workflowType: FLAKY_MAINTENANCE_WORKFLOW_TYPE,
    taskQueue,
    every: (options.every ?? '1 hour') as `${number} ${string}`,
    executionTimeout: '1 hour',
    catchupWindow: '1 hour',
  });
}
