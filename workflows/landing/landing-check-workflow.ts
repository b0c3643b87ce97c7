/**
 * landingCheckWorkflow: one periodic landing check, started by the Temporal Schedule of
 * worker/landing-check-schedule.ts (every 15 minutes). The work is one activity
 * (activities/landing-check.ts): the landings of the last day compared again on their host; the
 * workflow gives it durable retries and a heartbeat deadline, and says in its log how many changed.
 */
import { log, proxyActivities } from '@temporalio/workflow';
import type { LandingCheckActivities, LandingCheckSummary } from '../../activities/landing-check';

const { checkRecentLandings } = proxyActivities<LandingCheckActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

export async function landingCheckWorkflow(): Promise<LandingCheckSummary> {
  const summary = await checkRecentLandings();
  if (summary.changed > 0)
    log.error(`landing check: ${summary.changed} recent landings changed`, { ...summary });
  return summary;
}
