/**
 * An executor job as the worker's executeTestRun stores it, for tests of the executor routes that
 * stage a run's content themselves: the job of PR 1's run `runId`, running `true`, whose content is
 * `contentToken`'s. The task token is random: these tests complete no activity.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { RepositoryKey } from '../../contract';
import { createExecutorJobs } from '../../test-runs/store/executor-jobs';

export function enqueueRunJob(
  pool: Pool,
  job: {
    taskQueue: string;
    repo: RepositoryKey;
    runId: string;
    contentToken: string;
    headSha?: string;
    attempt?: number;
  },
): Promise<string | null> {
  return createExecutorJobs(pool).enqueue({
    taskQueue: job.taskQueue,
    attempt: job.attempt ?? 1,
    taskToken: randomBytes(16),
    input: {
      runId: job.runId,
      repo: job.repo,
      branchName: `railyard-merge/pr-1/${job.runId}`,
      headSha: job.headSha ?? 'a'.repeat(40),
      command: 'true',
      timeoutMs: 60_000,
      contentToken: job.contentToken,
    },
  });
}
