/**
 * ensureGitHubReconciliationSchedule(client, taskQueue, minutes): the Temporal Schedule that runs
 * gitHubReconciliationWorkflow every `minutes` (RAILYARD_GITHUB_RECONCILE_MINUTES, default 5), created
 * on the first call and brought up to date (period, task queue) on every later one, so every worker
 * start with a GitHub App configured can call it. `removeGitHubReconciliationSchedule` deletes it, for
 * a worker started without an app (the workflow's activities are then not registered). Set-up of the
 * worker through Temporal's client API, not an activity.
 *
 * Policies: a run still going when the next is due is skipped (overlap SKIP: runs never pile up), and
 * after an outage only the latest missed run is caught up, within one period. A run is given at most
 * 30 minutes.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import { GITHUB_RECONCILIATION_WORKFLOW_TYPE } from '../contract';

export const GITHUB_RECONCILIATION_SCHEDULE_ID = 'railyard-github-reconciliation';

export async function ensureGitHubReconciliationSchedule(
  client: Client,
  taskQueue: string,
  minutes: number,
  options: { scheduleId?: string } = {},
): Promise<'created' | 'updated'> {
  if (!Number.isInteger(minutes) || minutes < 1)
    throw new Error(`The GitHub reconciliation period must be a whole number of minutes, not ${minutes}.`);
  const scheduleId = options.scheduleId ?? GITHUB_RECONCILIATION_SCHEDULE_ID;
  const every = `${minutes} minutes` as const;
  const spec = { intervals: [{ every }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: GITHUB_RECONCILIATION_WORKFLOW_TYPE,
    workflowId: `${scheduleId}-run`,
    taskQueue,
    args: [],
    workflowExecutionTimeout: '30 minutes',
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: every };
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
