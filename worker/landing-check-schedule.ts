/**
 * ensureLandingCheckSchedule(client, taskQueue): the Temporal Schedule that runs landingCheckWorkflow
 * (every 15 minutes by default: the last day's landings compared again on their host,
 * activities/landing-check.ts), created on the first call and brought up to date on every later one,
 * as the maintenance schedule (maintenance-schedule.ts). main.ts calls it at every worker start.
 *
 * Policies: a run still going when the next is due is skipped (overlap SKIP), and after an outage only
 * the latest missed run is caught up, within an hour.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import { LANDING_CHECK_WORKFLOW_TYPE } from '../contract';

export const LANDING_CHECK_SCHEDULE_ID = 'railyard-landing-check';

export async function ensureLandingCheckSchedule(
  client: Client,
  taskQueue: string,
  options: { scheduleId?: string; every?: `${number} ${string}` } = {},
): Promise<'created' | 'updated'> {
  const scheduleId = options.scheduleId ?? LANDING_CHECK_SCHEDULE_ID;
  const spec = { intervals: [{ every: options.every ?? '15 minutes' }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: LANDING_CHECK_WORKFLOW_TYPE,
    workflowId: `${scheduleId}-run`,
    taskQueue,
    args: [],
    workflowExecutionTimeout: '30 minutes',
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
