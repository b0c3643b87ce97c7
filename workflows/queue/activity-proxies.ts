/**
 * Activity stubs for the queue workflow's git work, with short timeouts (seconds). Its side effects go
 * through their own stub (side-effects.ts).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
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

/**
 * The admission's read of a submitted PR as a local activity (admission.ts): one marker event in the
 * workflow task of the submit instead of three events and a workflow task of its own (issue 25). A read
 * is short and changes nothing, so a read on a worker that died is simply made again with the retried
 * task. Only while the queue is quiet (QueueContext.quiet); else through `git`.
 */
export const localGit = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // The same bounded budget as `git`: past it the submission is rejected as unavailable.
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 12,
  },
});
