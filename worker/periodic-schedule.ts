/**
 * ensurePeriodicSchedule(client, schedule): a Temporal Schedule that starts one workflow type every
 * `every`, created on the first call and brought up to date (period, task queue, timeout, policies) on
 * every later one, so every worker start can call it before polling. The worker's Schedules
 * (maintenance, re-evaluation, GitHub reconciliation, landing check) are each one call of it. It talks
 * to Temporal's client API only: set-up of the worker, not an activity.
 *
 * Policies, the same for all: a run still going when the next is due is skipped (overlap SKIP: runs
 * never pile up or act twice at once), and after an outage only the latest missed run is caught up,
 * within `catchupWindow`. The run's workflow id is `<scheduleId>-run`.
 *
 * Workers start side by side, and one started without a GitHub App removes the reconciliation
 * Schedule that another is bringing up to date: the Schedule can vanish between the create that found
 * it and the update. Then it is created again (a few attempts, a short pause between), so a worker
 * start never fails on a race another worker's start made.
 */
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleOptionsAction,
} from '@temporalio/client';

/** A Temporal duration such as '1 hour' or '15 minutes'. */
export type TemporalDuration = `${number} ${string}`;

export interface PeriodicSchedule {
  readonly scheduleId: string;
  readonly workflowType: string;
  readonly taskQueue: string;
  readonly every: TemporalDuration;
  /** The most a run may take. */
  readonly executionTimeout: TemporalDuration;
  /** How far back a run missed in an outage is still made up for. */
  readonly catchupWindow: TemporalDuration;
}

export async function ensurePeriodicSchedule(
  client: Client,
  schedule: PeriodicSchedule,
): Promise<'created' | 'updated'> {
  const { scheduleId } = schedule;
  const spec = { intervals: [{ every: schedule.every }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: schedule.workflowType,
    workflowId: `${scheduleId}-run`,
    taskQueue: schedule.taskQueue,
    args: [],
    workflowExecutionTimeout: schedule.executionTimeout,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: schedule.catchupWindow };
  for (let attempt = 1; ; attempt++) {
    try {
      await client.schedule.create({ scheduleId, spec, action, policies });
      return 'created';
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    try {
      await client.schedule.getHandle(scheduleId).update((previous) => ({
        ...previous,
        spec,
        action: { ...previous.action, ...action },
        policies: { ...previous.policies, ...policies },
      }));
      return 'updated';
    } catch (err) {
      // Removed between the create and the update (another worker's start): make it again.
      if (!(err instanceof ScheduleNotFoundError) || attempt >= VANISHED_ATTEMPTS) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/** How often a Schedule removed under us is made again before the start gives up. */
const VANISHED_ATTEMPTS = 5;
