/**
 * ensureReevaluationSchedule(client, taskQueue): the Temporal Schedule that runs
 * flakyReevaluationWorkflow periodically (hourly by default), created on the first call and brought
 * up to date (interval, task queue) on every later one (periodic-schedule.ts), so every worker start
 * can call it (main.ts does, before polling). Overlap SKIP: sweeps never pile up.
 */
import type { Client } from '@temporalio/client';
import { FLAKY_REEVALUATION_WORKFLOW_TYPE } from '../contract';
import { ensurePeriodicSchedule } from './periodic-schedule';

export const REEVALUATION_SCHEDULE_ID = 'railyard-flaky-reevaluation';

export interface ReevaluationScheduleOptions {
  readonly scheduleId?: string;
  /** A Temporal duration such as '1 hour' or '15 minutes'. */
  readonly every?: string;
}

export function ensureReevaluationSchedule(
  client: Client,
  taskQueue: string,
  options: ReevaluationScheduleOptions = {},
): Promise<'created' | 'updated'> {
  return ensurePeriodicSchedule(client, {
    scheduleId: options.scheduleId ?? REEVALUATION_SCHEDULE_ID,
    workflowType: FLAKY_REEVALUATION_WORKFLOW_TYPE,
    taskQueue,
    every: (options.every ?? '1 hour') as `${number} ${string}`,
    executionTimeout: '1 hour',
    catchupWindow: '1 hour',
  });
}
