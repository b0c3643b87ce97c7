/**
 * flakyReevaluationWorkflow: one periodic sweep of the flaky-test statuses, started by the Temporal
 * Schedule of worker/reevaluation-schedule.ts. All the work is the one activity; the workflow only gives
 * it durable retries and a heartbeat deadline (a sweep of a large organisation takes minutes).
 *
 * A repository that fails does not fail the run: the activity skips it and the result counts it
 * (`failedRepositories`, with the first names in `failed`), which the workflow also logs, so the run
 * in the Temporal UI says how many repositories were left out.
 */
import { log, proxyActivities } from '@temporalio/workflow';
import type { FlakyActivities } from '../../activities/flaky';
import type { ReevaluationSummary } from '../../flaky/service';

const { reevaluateFlakyTests } = proxyActivities<FlakyActivities>({
  startToCloseTimeout: '50 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

export async function flakyReevaluationWorkflow(): Promise<ReevaluationSummary> {
  const summary = await reevaluateFlakyTests();
  if (summary.failedRepositories > 0) {
    log.warn(`re-evaluation left out ${summary.failedRepositories} repositories that failed`, {
      failed: summary.failed,
    });
  }
  return summary;
}
