/**
 * ensureReevaluationSchedule(client, taskQueue): the Temporal Schedule that runs
 * flakyReevaluationWorkflow periodically (hourly by default), created on the first call and brought
 * up to date (interval, task queue) on every later one, so every worker start can call it (main.ts
 * does, before polling). It talks to Temporal's client API only: set-up of the worker, not an activity.
 *
 * Policies: a run still going when the next is due is skipped (overlap SKIP: sweeps never pile up),
 * and after an outage only the latest missed run is caught up, within an hour.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import { FLAKY_REEVALUATION_WORKFLOW_TYPE } from '../contract';

export const REEVALUATION_SCHEDULE_ID = 'railyard-flaky-reevaluation';

export interface ReevaluationScheduleOptions {
  readonly scheduleId?: string;
  /** A Temporal duration such as '1 hour' or '15 minutes'. */
  readonly every?: string;
}

export async function ensureReevaluationSchedule(
  client: Client,
  taskQueue: string,
  options: ReevaluationScheduleOptions = {},
): Promise<'created' | 'updated'> {
  const scheduleId = options.scheduleId ?? REEVALUATION_SCHEDULE_ID;
  const spec = { intervals: [{ every: (options.every ?? '1 hour') as `${number} ${string}` }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: FLAKY_REEVALUATION_WORKFLOW_TYPE,
    workflowId: `${scheduleId}-run`,
    taskQueue,
    args: [],
    workflowExecutionTimeout: '1 hour',
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({
    ...previous,
    spec,
    action: { ...previous.action, ...action },
    policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
  }));
  return 'updated';
}
