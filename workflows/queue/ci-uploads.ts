/**
 * A CI-judged run that failed (issue 28): before the engine hears of it, the failed tests CI uploaded for
 * the run's test commit are read (activities/merge-queue/uploaded-failures.ts), so the engine's
 * test-level rules (a flaky-only failure retried, a bisection chunk's unrelated failure, the tests named
 * on ejection) apply as they do to the queue's own command runs.
 *
 * Rules:
 * - The run stays in progress while its uploads are read (`readingUploads`): its statuses are not judged
 *   again meanwhile, and its testing timeout still ends it (a late answer for a run no longer in
 *   progress changes nothing).
 * - An upload naming failed tests: the engine gets them with the failure. No upload within the wait:
 *   the run-level rules decide, and its PRs' records say no upload came
 *   (`noUploadAfterSeconds`, reason-details.ts). The read failing for good (the store's errors or
 *   statement timeouts past the activity's three attempts): the run still fails, the run-level rules
 *   decide, and its PRs' records say the uploads could not be read (`uploadsUnreadable`). An upload
 *   naming no failed test, or a repository that never received one (`not_uploading`, answered at
 *   once): run-level, as before.
 * Invariant: the engine hears of the run's outcome once, as with every run (status-verdict.ts).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { UploadedFailures } from '../../activities/merge-queue/uploaded-failures';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import { notePassedOnTarget } from './passed-on-target';

const uploads = proxyActivities<Activities>({
  // The activity waits for CI's upload (RAILYARD_CI_UPLOAD_WAIT_SECONDS, at most 10 minutes) and
  // heartbeats while it does.
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/** Reads CI's uploads for the failed run's commit, then tells the engine the failure (with its tests). */
export function finishWithUploadedTests(ctx: QueueContext, run: RunMeta, headSha: string): void {
  run.readingUploads = true;
  const { runId } = run;
  ctx.track(
    async () => {
      const found: UploadedFailures = await uploads
        .readUploadedFailures({
          organisationId: ctx.key.organisationId,
          repo: ctx.key.repo,
          sha: headSha,
          targetBranch: ctx.key.targetBranch,
        })
        .finally(() => delete run.readingUploads);
      if (run.status !== 'in_progress') return;
      run.status = 'failed';
      if (found.kind === 'uploaded' && found.tests.length > 0) {
        notePassedOnTarget(run, found.tests);
        ctx.push({
          type: 'testRunFinished',
          runId,
          outcome: 'failed',
          tests: found.tests,
          judge: 'statuses',
        });
        return;
      }
      if (found.kind === 'none') run.noUploadAfterSeconds = found.waitedSeconds;
      ctx.push({ type: 'testRunFinished', runId, outcome: 'failed' });
    },
    () => {
      // The read failed for good (the store's errors or timeouts past the activity's retries): the run
      // failed all the same, so the run-level rules decide (never a pass), and its records say why.
      if (run.status !== 'in_progress') return;
      run.status = 'failed';
      run.uploadsUnreadable = true;
      ctx.push({ type: 'testRunFinished', runId, outcome: 'failed' });
    },
  );
}
