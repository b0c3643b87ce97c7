/**
 * Activity stubs for the queue workflow's git work, with short timeouts (seconds). Its side effects go
 * through their own stub (side-effects.ts).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

export const git = proxyActivities<Activities>({
  // Git work takes milliseconds to seconds; a short bound retries quickly after a worker dies mid-call.
  startToCloseTimeout: '30 seconds',
  // The git activities heartbeat every second while they run (activities/merge-queue/git-activities.ts):
  // a call on a worker that died is retried after this, not after the whole 30 s.
  heartbeatTimeout: '10 seconds',
  // Bounded: past this the run fails to start or the merge fails, with a reason, instead of hanging.
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 12,
  },
});
