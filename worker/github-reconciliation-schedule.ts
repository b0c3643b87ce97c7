/**
 * ensureGitHubReconciliationSchedule(client, taskQueue, minutes): the Temporal Schedule that runs
 * gitHubReconciliationWorkflow every `minutes` (RAILYARD_GITHUB_RECONCILE_MINUTES, default 5), created
 * on the first call and brought up to date (period, task queue) on every later one, so every worker
 * start with a GitHub App configured can call it. `removeGitHubReconciliationSchedule` deletes it, for
 * a worker started without an app (the workflow's activities are then not registered). Set-up of the
 * worker through Temporal's client API, not an activity (periodic-schedule.ts). After an outage only
 * the latest missed run is caught up, within one period. A run is given at most 30 minutes.
 */
import { type Client, ScheduleNotFoundError } from '@temporalio/client';
import { GITHUB_RECONCILIATION_WORKFLOW_TYPE } from '../contract';
import { ensurePeriodicSchedule } from './periodic-schedule';

export const GITHUB_RECONCILIATION_SCHEDULE_ID = 'railyard-github-reconciliation';

export function ensureGitHubReconciliationSchedule(
  client: Client,
  taskQueue: string,
  minutes: number,
  options: { scheduleId?: string } = {},
): Promise<'created' | 'updated'> {
  if (!Number.isInteger(minutes) || minutes < 1)
    return Promise.reject(
      new Error(`The GitHub reconciliation period must be a whole number of minutes, not ${minutes}.`),
    );
  const every = `${minutes} minutes` as const;
  return ensurePeriodicSchedule(client, {
    scheduleId: options.scheduleId ?? GITHUB_RECONCILIATION_SCHEDULE_ID,
    workflowType: GITHUB_RECONCILIATION_WORKFLOW_TYPE,
    taskQueue,
    every,
    executionTimeout: '30 minutes',
    // Only the latest missed run, within one period.
    catchupWindow: every,
  });
}

/** Deletes the Schedule; false when there was none. */
export async function removeGitHubReconciliationSchedule(
  client: Client,
  options: { scheduleId?: string } = {},
): Promise<boolean> {
  try {
    await client.schedule.getHandle(options.scheduleId ?? GITHUB_RECONCILIATION_SCHEDULE_ID).delete();
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw err;
  }
}
