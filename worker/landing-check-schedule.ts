/**
 * ensureLandingCheckSchedule(client, taskQueue): the Temporal Schedule that runs landingCheckWorkflow
 * (every 15 minutes by default: the last day's landings compared again on their host,
 * activities/landing-check.ts), created on the first call and brought up to date on every later one
 * (periodic-schedule.ts). main.ts calls it at every worker start. A run is given at most 30 minutes.
 */
import type { Client } from '@temporalio/client';
import { LANDING_CHECK_WORKFLOW_TYPE } from '../contract';
import { ensurePeriodicSchedule, type TemporalDuration } from './periodic-schedule';

export const LANDING_CHECK_SCHEDULE_ID = 'railyard-landing-check';

export function ensureLandingCheckSchedule(
  client: Client,
  taskQueue: string,
  options: { scheduleId?: string; every?: TemporalDuration } = {},
): Promise<'created' | 'updated'> {
  return ensurePeriodicSchedule(client, {
    scheduleId: options.scheduleId ?? LANDING_CHECK_SCHEDULE_ID,
    workflowType: LANDING_CHECK_WORKFLOW_TYPE,
    taskQueue,
    every: options.every ?? '15 minutes',
    executionTimeout: '30 minutes',
    catchupWindow: '1 hour',
  });
}
