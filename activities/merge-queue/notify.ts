/**
 * notifyPullRequest: delivers a submission's transitions to the PR's own workflow with one
 * signal-with-start, so the record exists from the first transition on and no ordering between "start"
 * and "signal" is needed.
 * PR workflows are not children of the queue workflow (continue-as-new would close them); the notice
 * carries a per-submission sequence number, so a retried delivery is recorded once, and a delivery for a
 * submission whose record has already closed is dropped instead of starting a new run.
 * refreshPullRequestDetails signals details between transitions to a running record only.
 *
 * Both also fold what they deliver into the read projection's row of the submission (`records`,
 * ADR 0016) after the signals, so when the activity completes (and the queue counts the submission as
 * admitted) listPullRequests finds it. That write is the fast path only: one that fails (PostgreSQL
 * down) is logged and skipped, so the queue keeps admitting PRs through an outage, and the event log's
 * append folds the same notices durably (activities/events/append.ts); the fold is idempotent per seq.
 */
import { log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  PR_NUMBER,
  PR_STATE,
  prDetailsSignal,
  prTransitionSignal,
  prWorkflowId,
  PULL_REQUEST_WORKFLOW_TYPE,
  REPOSITORY,
  repositoryLabel,
  TARGET_BRANCH,
  type PrDetailsRefresh,
  type PrTransitionNotice,
  type PullRequestWorkflow,
  type PullRequestWorkflowInput,
} from '../../contract';
import type { PrRecordStore } from '../../events/store/pr-records';

export function createNotifyActivity(deps: { client: Client; taskQueue: string; records?: PrRecordStore }) {
  /** A retried delivery for a submission whose record already closed must not start a new run. */
  async function endedAlready(workflowId: string, submissionId: string): Promise<boolean> {
    try {
      const d = await deps.client.workflow.getHandle(workflowId).describe();
      return d.status.name !== 'RUNNING' && d.memo?.submissionId === submissionId;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /** The fast path of the read projection: what it cannot write, the event log's append does. */
  async function project(write: () => Promise<void> | undefined): Promise<void> {
    try {
      await write();
    } catch (err) {
      log.warn('could not fold the notice into the read projection; the event log will', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  return {
    async notifyPullRequest(input: {
      workflow: PullRequestWorkflowInput;
      notices: PrTransitionNotice[];
    }): Promise<void> {
      const { workflow } = input;
      const workflowId = prWorkflowId(workflow.key, workflow.prNumber);
      if (await endedAlready(workflowId, workflow.submissionId)) {
        await project(() => deps.records?.transitions(workflow, input.notices));
        return;
      }
      const last = input.notices[input.notices.length - 1];
      if (!last) return;
      // One signal for all of them (the workflow applies them in seq order, a retry's duplicates once).
      await deps.client.workflow.signalWithStart<PullRequestWorkflow, [PrTransitionNotice[]]>(
        PULL_REQUEST_WORKFLOW_TYPE,
        {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [workflow],
          signal: prTransitionSignal,
          signalArgs: [input.notices],
          typedSearchAttributes: [
            { key: REPOSITORY, value: repositoryLabel(workflow.key.repo) },
            { key: TARGET_BRANCH, value: workflow.key.targetBranch },
            { key: PR_NUMBER, value: workflow.prNumber },
            // The state the record has once it applied them; the workflow upserts only a change.
            { key: PR_STATE, value: last.transition.to },
          ],
          memo: { submissionId: workflow.submissionId },
          staticSummary: `PR #${workflow.prNumber} → ${workflow.key.targetBranch} of ${repositoryLabel(workflow.key.repo)}`,
        },
      );
      await project(() => deps.records?.transitions(workflow, input.notices));
      // A testing notice the build held to carry its commit (held-testing-notices.ts): the event log's
      // append folded that transition before the build, so the commit goes in as a refresh after it.
      if (last.transition.to === 'testing' && last.testedOn) {
        const { submissionId, seq, details, testedOn } = last;
        await project(() =>
          deps.records?.refresh(workflow, { submissionId, afterSeq: seq, details, testedOn }),
        );
      }
    },

    /** New details between transitions: only a running record takes them (no start, no new run). */
    async refreshPullRequestDetails(input: {
      workflow: PullRequestWorkflowInput;
      refresh: PrDetailsRefresh;
    }) {
      const workflowId = prWorkflowId(input.workflow.key, input.workflow.prNumber);
      try {
        await deps.client.workflow.getHandle(workflowId).signal(prDetailsSignal, input.refresh);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return;
        throw err;
      }
      await project(() => deps.records?.refresh(input.workflow, input.refresh));
    },
  };
}
