/**
 * flakyReevaluationWorkflow: one periodic sweep of the flaky-test statuses, started by the Temporal
 * Schedule of activities/flaky/schedule.ts. All the work is the one activity; the workflow only gives
 * it durable retries and a heartbeat deadline (a sweep of a large organisation takes minutes).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { FlakyActivities } from '../../activities/flaky/activities';
import type { ReevaluationSummary } from '../../activities/flaky/store';

const { reevaluateFlakyTests } = proxyActivities<FlakyActivities>({
  startToCloseTimeout: '50 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

export async function flakyReevaluationWorkflow(): Promise<ReevaluationSummary> {
  return reevaluateFlakyTests();
}
