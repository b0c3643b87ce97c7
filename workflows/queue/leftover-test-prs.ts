/**
 * Leftover test PRs (draft-PR testing mode, docs/github.md): on a `reconcile` hint the queue lists
 * railyard's open test PRs into its target branch and closes those of runs it no longer holds, deleting
 * their branches (deleteTestBranch closes a branch's PRs first). A run ends its own PR through
 * cleanUpFinishedRuns; what this finds was left by work the queue never heard back from: a build whose
 * retries ran out after it had opened the PR, a deletion whose retries ran out, or a queue workflow
 * terminated or reset while it had runs (its successor does not know them).
 *
 * Invariant: a run the queue still holds and has not cleaned up is never touched, however it stands
 * (building, testing, passed and waiting to land). Which runs those are is decided when the listing
 * returns, not when it was asked for, so a run started while GitHub was read keeps its PR.
 */
import { log } from '@temporalio/workflow';
import { git } from './activity-proxies';
import type { QueueContext } from './context';

export async function closeLeftoverTestPrs(ctx: QueueContext): Promise<void> {
  const { carried, key } = ctx;
  const prefix = carried.runner.testBranchPrefix;
  const scope = { repo: key.repo, ...(prefix ? { testBranchPrefix: prefix } : {}) };
  const open = await git.listTestPullRequests({ ...scope, targetBranch: key.targetBranch });
  const held = new Set(carried.runs.filter((r) => !r.cleaned).map((r) => r.runId));
  for (const pr of open) {
    if (held.has(pr.runId)) continue;
    log.info('closing a test PR left over by a run no longer in progress', {
      pr: pr.number,
      branch: pr.branchName,
      runId: pr.runId,
    });
    await git.deleteTestBranch({ ...scope, branchName: pr.branchName });
  }
}
