/**
 * flakyMaintenanceWorkflow: one periodic maintenance of the flaky-test results, started by the
 * Temporal Schedule of worker/maintenance-schedule.ts: day partitions made ahead, partitions past
 * every organisation's retention dropped, shorter retentions and rollups trimmed in batches
 * (flaky/store/result-maintenance.ts). All the work is the one activity; the workflow gives it
 * durable retries and a heartbeat deadline.
 *
 * A partition whose lock was not granted in time is not a failure: it is named in the result (and
 * logged) and the next run drops it.
 */
import { log, proxyActivities } from '@temporalio/workflow';
import type { FlakyActivities } from '../../activities/flaky';
import type { MaintenanceSummary } from '../../flaky/store/result-maintenance';

const { maintainFlakyResults } = proxyActivities<FlakyActivities>({
  startToCloseTimeout: '50 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

export async function flakyMaintenanceWorkflow(): Promise<MaintenanceSummary> {
  const summary = await maintainFlakyResults();
  if (summary.partitionsLeft.length > 0) {
    log.warn(`maintenance left ${summary.partitionsLeft.length} partitions for the next run`, {
      partitions: summary.partitionsLeft,
    });
  }
  return summary;
}
