/**
 * The merge-queue use cases over Temporal. Every queue is a `queueWorkflow` (contract names it);
 * changes are its updates, reads its queries, CI statuses a signal. Every submission of a PR is a run of
 * a `pullRequestWorkflow`, read with a query also after it finished and listed through visibility.
 *
 * Rules and invariants:
 * - Tenancy lives in the workflow id, which starts with the organisation id: no call can reach another
 *   organisation's queue or PR.
 * - A queue exists while its workflow runs; a deleted queue's workflow has completed, so it reads as
 *   missing (404) and createQueue may start a new run under the same id.
 * - Changes carry the route's `updateId`, so Temporal applies a retried request once.
 * - The queue's rejections (ApplicationFailures typed by QueueRejection) become 404 / 400 with the
 *   failure's own sentence; a missing workflow becomes the queue 404.
 * - A first submission returns once the PR's record shows it (bounded wait), so a client reading it
 *   right after submitting finds it: the submit update answers at once and the queue admits the PR
 *   afterwards, so the wait is on the queue's admission query (admission-watcher.ts, ADR 0005).
 * - Every Temporal call goes through `temporal.call`: a deadline, and 503 when Temporal or the worker
 *   does not answer. Updates and queries of one workflow also wait their turn for its slots (client.ts),
 *   so a burst of them is served in order instead of failing on Temporal's per-workflow limits.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Organisation } from '../../stores/api-keys';
import {
  cancelUpdate,
  commitStatusSignal,
  deleteQueueUpdate,
  getPullRequestQuery,
  getQueueQuery,
  getTestRunQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  REPOSITORY,
  repositoryLabel,
  restartUpdate,
  setImpactedTargetsUpdate,
  submitUpdate,
  TARGET_BRANCH,
  updateQueueUpdate,
  type PullRequestRecord,
  type QueueRejection,
  type TestRunDetails,
  type QueueWorkflow,
} from '../../contract';
import { badRequest, notFound, unavailable, type AppError } from '../errors';
import { listSubmissions, QUERY_BATCH } from './submission-listing';
import {
  queueExists,
  queueNotFound,
  type Change,
  type MergeQueueService,
  type QueueAddress,
} from '../routes/merge-queue/service';
import * as wire from './wire';
import { MAX_RUNS_IN_PROGRESS_LISTED } from '../schemas/limits';
import { createAdmissionWatcher } from './admission-watcher';
import { estimateTimeToMerge } from './estimate';
import { timelineOf, type RecordLinks } from './record-wire';
import type { TestDurations } from '../../events/store/test-durations';
import type { RunLogStore } from '../../test-runs/store/run-logs';
import type { TemporalGateway } from './client';

const REJECTION_STATUS: Record<QueueRejection, (message: string) => AppError> = {
  not_found: notFound,
  deleted: notFound,
  not_empty: badRequest,
  invalid: badRequest,
  unavailable,
};

function isRejection(type: string | null | undefined): type is QueueRejection {
  return typeof type === 'string' && Object.hasOwn(REJECTION_STATUS, type);
}

/** The AppError a failed queue call stands for, or the error itself when it is not one we expect. */
function asQueueError(err: unknown, key: QueueAddress): unknown {
  if (err instanceof WorkflowNotFoundError) return queueNotFound(key);
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const { type, message } = err.cause;
    if (isRejection(type)) return REJECTION_STATUS[type](message);
  }
  return err;
}

const queueKeyOf = (org: Organisation, key: QueueAddress) => ({
  organisationId: org.id,
  repo: key.repo,
  targetBranch: key.targetBranch,
});

const isRunning = async (handle: WorkflowHandle) => (await handle.describe()).status.name === 'RUNNING';

export interface MergeQueueServiceOptions {
  /** Base of the links records carry (a run's log); relative links without it. */
  publicUrl?: string;
  /** This queue's recent test durations, for includeEstimatedTimeToMerge (the default duration without). */
  testDurations?: TestDurations;
  /** Command runs' logs as the worker stored them (ADR 0011); without it no log is served. */
  runLogs?: RunLogStore;
  now?: () => number;
}

export function createMergeQueueService(
  temporal: TemporalGateway,
  options: MergeQueueServiceOptions = {},
): MergeQueueService {
  const { client } = temporal;
  const links: RecordLinks = {
    testRunLogUrl: (id) => `${options.publicUrl ?? ''}/v1/testRuns/${encodeURIComponent(id)}/log`,
  };
  const now = options.now ?? Date.now;
  const admissions = createAdmissionWatcher(temporal);
  const queueHandle = (org: Organisation, key: QueueAddress) =>
    client.workflow.getHandle(queueWorkflowId(queueKeyOf(org, key)));

  /**
   * One queue update under the route's update id; rejections and a missing queue become AppErrors.
   * As an update of the queue's workflow it waits its turn for an update slot (client.ts), so a burst
   * of changes to one queue is served in order rather than refused.
   */
  async function update<Ret>(
    what: string,
    change: Change,
    key: QueueAddress,
    run: (handle: WorkflowHandle, options: { updateId: string }) => Promise<Ret>,
  ): Promise<Ret> {
    const handle = queueHandle(change.org, key);
    try {
      return await temporal.call(what, () => run(handle, { updateId: change.updateId }), {
        updateOf: handle.workflowId,
      });
    } catch (err) {
      throw asQueueError(err, key);
    }
  }

  /** Runs `read` on the queue if it exists (its workflow runs); null if it does not. */
  async function readQueue<T>(
    what: string,
    org: Organisation,
    key: QueueAddress,
    read: (h: WorkflowHandle) => Promise<T>,
  ) {
    const handle = queueHandle(org, key);
    try {
      return await temporal.call(what, async () => ((await isRunning(handle)) ? read(handle) : null), {
        queryOf: handle.workflowId,
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /**
   * A finished submission's record is its workflow's result, read from history without a worker; only
   * a submission still in the queue is queried (which needs a worker).
   */
  async function queryPullRequest(workflowId: string, runId?: string): Promise<PullRequestRecord | null> {
    try {
      return await temporal.call(
        'getSubmittedPullRequest',
        async () => {
          const handle = client.workflow.getHandle(workflowId, runId);
          const { status } = await handle.describe();
          return status.name === 'COMPLETED'
            ? ((await handle.result()) as PullRequestRecord)
            : await handle.query(getPullRequestQuery);
        },
        { queryOf: workflowId },
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  return {
    async createQueue(org, request) {
      const label = repositoryLabel(request.repo);
      try {
        await temporal.call('createQueue', () =>
          client.workflow.start<QueueWorkflow>(QUEUE_WORKFLOW_TYPE, {
            workflowId: queueWorkflowId(queueKeyOf(org, request)),
            taskQueue: temporal.taskQueue,
            args: [wire.queueWorkflowInput(org, request)],
            workflowIdConflictPolicy: 'FAIL',
            typedSearchAttributes: [
              { key: REPOSITORY, value: label },
              { key: TARGET_BRANCH, value: request.targetBranch },
            ],
            staticSummary: `Merge queue of ${label}, branch "${request.targetBranch}" (organisation ${org.slug})`,
          }),
        );
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) throw queueExists(request);
        throw err;
      }
    },

    async getQueue(org, key) {
      return readQueue('getQueue', org, key, async (h) => wire.queueView(await h.query(getQueueQuery)));
    },

    async updateQueue(change, request) {
      const settings = await update('updateQueue', change, request, (h, o) =>
        h.executeUpdate(updateQueueUpdate, { ...o, args: [wire.updateQueueInput(request)] }),
      );
      return wire.queueSettings(settings);
    },

    async deleteQueue(change, key) {
      await update('deleteQueue', change, key, (h, o) => h.executeUpdate(deleteQueueUpdate, o));
    },

    async submitPullRequest(change, request) {
      const { submissionId } = await update('submitPullRequest', change, request, (h, o) =>
        h.executeUpdate(submitUpdate, { ...o, args: [wire.submitInput(request)] }),
      );
      // Answer once the PR's record holds this submission, so a client polling getSubmittedPullRequest
      // right after submitting never sees a 404 or the previous submission.
      let outcome;
      try {
        outcome = await admissions.wait(queueHandle(change.org, request).workflowId, submissionId);
      } catch (err) {
        throw asQueueError(err, request);
      }
      if (outcome.state === 'rejected') throw REJECTION_STATUS[outcome.rejection](outcome.message);
    },

    async cancelPullRequest(change, request) {
      // Who asked is shown in the PR's record: the key's name and organisation, never the key.
      const { keyName, slug } = change.org;
      const actor = keyName
        ? `API key "${keyName}" of organisation ${slug}`
        : `an API key of organisation ${slug}`;
      await update('cancelPullRequest', change, request, (h, o) =>
        h.executeUpdate(cancelUpdate, { ...o, args: [{ pr: request.pr.number, actor }] }),
      );
    },

    async restartTestsOnPullRequest(change, request) {
      await update('restartTestsOnPullRequest', change, request, (h, o) =>
        h.executeUpdate(restartUpdate, { ...o, args: [{ pr: request.pr.number }] }),
      );
    },

    async setImpactedTargets(change, request) {
      const input = { pr: request.pr.number, headSha: request.pr.sha, targets: request.impactedTargets };
      await update('setImpactedTargets', change, request, (h, o) =>
        h.executeUpdate(setImpactedTargetsUpdate, { ...o, args: [input] }),
      );
    },

    async getSubmittedPullRequest(org, request) {
      const record = await queryPullRequest(prWorkflowId(queueKeyOf(org, request), request.pr.number));
      if (!record) return null;
      const answer = wire.submittedPullRequest(record, links, request.targetBranch);
      if (request.includeTimeline) answer.timeline = timelineOf(record, links, request.targetBranch);
      if (request.includeEstimatedTimeToMerge) {
        const queue = record.isCurrentlySubmittedToQueue
          ? await readQueue('getQueue', org, request, async (h) =>
              wire.queueView(await h.query(getQueueQuery)),
            )
          : null;
        const durations =
          queue && options.testDurations
            ? await options.testDurations({
                organisationId: org.id,
                ...request.repo,
                targetBranch: request.targetBranch,
              })
            : [];
        answer.estimatedTimeToMerge = estimateTimeToMerge({ record, queue, durations, now: now() });
      }
      return answer;
    },

    async listPullRequests(org, request) {
      const exists = await readQueue('listPullRequests', org, request, () => Promise.resolve(true));
      if (!exists) throw queueNotFound(request);
      return listSubmissions(temporal, org, request, queryPullRequest, links);
    },

    async getTestingDetails(org, request) {
      const found = await readQueue('getMergeQueueTestingDetails', org, request, async (h) => ({
        run: await h.query(getTestRunQuery, request.testRunId),
      }));
      if (!found) throw queueNotFound(request);
      return found.run ? wire.testingDetails(found.run, request) : null;
    },

    async getTestRunsInProgress(org, key) {
      const found = await readQueue('getMergeQueueTestingDetails', org, key, async (h) => {
        const ids = ((await h.query(getQueueQuery)).testRunsInProgress ?? []).slice(
          0,
          MAX_RUNS_IN_PROGRESS_LISTED,
        );
        const runs: (TestRunDetails | null)[] = [];
        // Bounded fan-out, as listSubmissions: one query per run, QUERY_BATCH at a time.
        for (let i = 0; i < ids.length; i += QUERY_BATCH)
          runs.push(
            ...(await Promise.all(ids.slice(i, i + QUERY_BATCH).map((id) => h.query(getTestRunQuery, id)))),
          );
        return runs;
      });
      if (!found) throw queueNotFound(key);
      return {
        // A run that ended between the two reads is left out: it is no longer in progress.
        testRuns: found
          .filter((run): run is TestRunDetails => run !== null && run.status === 'in_progress')
          .map((run) => ({ testRunId: run.testRunId, ...wire.testingDetails(run, key) })),
      };
    },

    async readTestRunLog(org, testRunId) {
      const store = options.runLogs;
      const info = store ? await store.info(org.id, testRunId) : null;
      return store && info ? { info, chunk: (offset) => store.read(org.id, testRunId, offset) } : null;
    },

    async reportTestStatus(org, request) {
      try {
        await temporal.call('reportTestStatus', () =>
          queueHandle(org, request).signal(commitStatusSignal, wire.commitStatusReport(request)),
        );
      } catch (err) {
        throw asQueueError(err, request);
      }
    },
  };
}
