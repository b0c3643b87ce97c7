/**
 * The merge-queue use cases over the queue client (queue-client/): what is the API's own is here, the
 * wire format (wire.ts, record-wire.ts) and the HTTP errors; finding, starting, changing and reading
 * the queue and PR workflows is the queue client's.
 *
 * Rules and invariants:
 * - Tenancy lives in the workflow id, which starts with the organisation id: every id is built from the
 *   caller's organisation, so no call can reach another organisation's queue or PR.
 * - A queue exists while its workflow runs: a deleted queue's workflow has completed, so it reads as
 *   missing (404) and createQueue may start a new run under the same id.
 * - Changes carry the route's `updateId`, so Temporal applies a retried request once.
 * - Every queue-client error becomes an AppError (api/errors.ts `queueAppError`): the queue's
 *   rejections 404 / 400 / 503 with the failure's own sentence, a missing queue the queue 404, an
 *   existing one the 409, a Temporal or worker that does not answer in time a 503. Anything else is
 *   passed on untouched (a 500).
 * - A first submission returns once the PR's record shows it (bounded wait), so a client reading it
 *   right after submitting finds it: the submit update answers at once and the queue admits the PR
 *   afterwards, so the wait is on the queue's admission query (queue-client/admission.ts, ADR 0005).
 *   A cancel likewise returns once the PR's record shows it ended (cancel-settling.ts).
 * - With a read projection (ADR 0016), getQueue and listPullRequests read PostgreSQL and query no
 *   workflow. A queue the projection does not hold (never projected, deleted, or none) is asked once
 *   and its answer stored. Every change this service makes stores the queue's view before it answers,
 *   so a client reads its own writes; the queue's own moves reach the projection with its appends.
 */
import type { Organisation } from '../../stores/api-keys';
import {
  cancelUpdate,
  commitStatusSignal,
  deleteQueueUpdate,
  getQueueQuery,
  getTestRunQuery,
  prWorkflowId,
  queueWorkflowId,
  restartUpdate,
  setImpactedTargetsUpdate,
  submitUpdate,
  updateQueueUpdate,
  type QueueKey,
  type QueueSnapshot,
  type TestRunDetails,
} from '../../contract';
import { inBatches, isQueueClientError, QueueClientError, type QueueClient } from '../../queue-client';
import { queueAppError } from '../errors';
import { listSubmissions } from './submission-listing';
import { listRecords } from './record-listing';
import { createCoalescedRefresh } from './coalesced-refresh';
import { waitForCancelSettled } from './cancel-settling';
import { createRenderedViews } from './rendered-views';
import type { QueueViewStore } from '../../events/store/queue-views';
import type { PrRecordStore } from '../../events/store/pr-records';
import {
  queueExists,
  queueNotFound,
  type MergeQueueService,
  type QueueAddress,
} from '../routes/merge-queue/service';
import * as wire from './wire';
import { MAX_RUNS_IN_PROGRESS_LISTED } from '../schemas/limits';
import { estimateTimeToMerge } from './estimate';
import { timelineOf, type RecordLinks } from './record-wire';
import type { TestDurations } from '../../events/store/test-durations';
import type { RunLogStore } from '../../test-runs/store/run-logs';

const queueKeyOf = (org: Organisation, key: QueueAddress): QueueKey => ({
  organisationId: org.id,
  repo: key.repo,
  targetBranch: key.targetBranch,
});

/** Runs `run`; a queue-client error it throws becomes the AppError it stands for, about queue `key`. */
async function answering<T>(key: QueueAddress, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isQueueClientError(err)) throw err;
    throw queueAppError(err, { missing: () => queueNotFound(key), exists: () => queueExists(key) });
  }
}

export interface MergeQueueServiceOptions {
  /** Base of the links records carry (a run's log); relative links without it. */
  publicUrl?: string;
  /** This queue's recent test runs and landings, for includeEstimatedTimeToMerge (no estimate without). */
  testDurations?: TestDurations;
  /** Command runs' logs as the worker stored them (ADR 0011); without it no log is served. */
  runLogs?: RunLogStore;
  now?: () => number;
  /** The read projection (ADR 0016); without it every read queries the workflows. */
  projection?: { views: QueueViewStore; records: PrRecordStore };
}

export function createMergeQueueService(
  queues: QueueClient,
  options: MergeQueueServiceOptions = {},
): MergeQueueService {
  const links: RecordLinks = {
    testRunLogUrl: (id) => `${options.publicUrl ?? ''}/v1/testRuns/${encodeURIComponent(id)}/log`,
  };
  const now = options.now ?? Date.now;
  const queueId = (org: Organisation, key: QueueAddress) => queueWorkflowId(queueKeyOf(org, key));
  const projection = options.projection;
  const refreshView = createCoalescedRefresh();
  const rendered = createRenderedViews();

  /** The queue's snapshot from its workflow (null: none runs), stored in the projection if there is one. */
  async function askQueue(what: string, org: Organisation, key: QueueAddress): Promise<QueueSnapshot | null> {
    const snapshot = await queues.readQueue(what, queueId(org, key), (q) => q.query(getQueueQuery));
    if (snapshot && projection) await projection.views.put(queueKeyOf(org, key), snapshot);
    return snapshot;
  }

  /** The queue's snapshot: the projection's, or (when it holds none) the workflow's. */
  async function readSnapshot(
    what: string,
    org: Organisation,
    key: QueueAddress,
  ): Promise<QueueSnapshot | null> {
    const row = projection ? await projection.views.get(queueKeyOf(org, key)) : null;
    if (row && !row.deleted) return row.snapshot;
    return askQueue(what, org, key);
  }

  /**
   * After a change: stores the view that includes it, so the caller's next read sees it. The change is
   * done whatever happens here; a view that cannot be read now follows with the queue's next append.
   */
  async function projectAfterChange(org: Organisation, key: QueueAddress): Promise<void> {
    if (!projection) return;
    // A burst of changes to one queue shares its refreshes (two, not one each).
    await refreshView(queueId(org, key), async () => {
      await askQueue('getQueue', org, key);
    }).catch(() => undefined);
  }

  return {
    createQueue: (org, request) =>
      answering(request, () =>
        queues.startQueue(wire.queueWorkflowInput(org, request), { organisationSlug: org.slug }),
      ),

    getQueue: (org, key) =>
      answering(key, async () => {
        if (projection) {
          // An answer built from this very version of the view is reused (rendered-views.ts).
          const id = queueId(org, key);
          const held = await projection.views.version(queueKeyOf(org, key));
          const kept = held && !held.deleted ? rendered.get(id, held) : undefined;
          if (kept) return kept;
          const row = held && !held.deleted ? await projection.views.get(queueKeyOf(org, key)) : null;
          if (row && !row.deleted) {
            const view = wire.queueView(row.snapshot);
            rendered.keep(id, row, view);
            return view;
          }
        }
        const snapshot = await readSnapshot('getQueue', org, key);
        return snapshot ? wire.queueView(snapshot) : null;
      }),

    updateQueue: (change, request) =>
      answering(request, async () => {
        const settings = await queues.updateQueue(
          'updateQueue',
          queueId(change.org, request),
          updateQueueUpdate,
          { updateId: change.updateId, args: [wire.updateQueueInput(request)] },
        );
        await projectAfterChange(change.org, request);
        return wire.queueSettings(settings);
      }),

    deleteQueue: (change, key) =>
      answering(key, async () => {
        await queues.updateQueue('deleteQueue', queueId(change.org, key), deleteQueueUpdate, {
          updateId: change.updateId,
          args: [],
        });
        await projection?.views.markDeleted(queueKeyOf(change.org, key));
      }),

    submitPullRequest: (change, request) =>
      answering(request, async () => {
        const workflowId = queueId(change.org, request);
        const { submissionId } = await queues.updateQueue('submitPullRequest', workflowId, submitUpdate, {
          updateId: change.updateId,
          args: [wire.submitInput(request)],
        });
        // Answer once the PR's record holds this submission, so a client polling getSubmittedPullRequest
        // right after submitting never sees a 404 or the previous submission.
        const outcome = await queues.waitForAdmission(workflowId, submissionId);
        if (outcome.state === 'rejected') {
          const { rejection, message } = outcome;
          throw new QueueClientError({ kind: 'rejected', rejection, message });
        }
        await projectAfterChange(change.org, request);
      }),

    cancelPullRequest: (change, request) =>
      answering(request, async () => {
        // Who asked is shown in the PR's record: the key's name and organisation, never the key.
        const { keyName, slug } = change.org;
        const actor = keyName
          ? `API key "${keyName}" of organisation ${slug}`
          : `an API key of organisation ${slug}`;
        await queues.updateQueue('cancelPullRequest', queueId(change.org, request), cancelUpdate, {
          updateId: change.updateId,
          args: [{ pr: request.pr.number, actor }],
        });
        // Read-your-writes, as for a submit (cancel-settling.ts).
        await waitForCancelSettled(() =>
          queues.readPullRequest(prWorkflowId(queueKeyOf(change.org, request), request.pr.number)),
        );
        await projectAfterChange(change.org, request);
      }),

    restartTestsOnPullRequest: (change, request) =>
      answering(request, async () => {
        await queues.updateQueue('restartTestsOnPullRequest', queueId(change.org, request), restartUpdate, {
          updateId: change.updateId,
          args: [{ pr: request.pr.number }],
        });
        await projectAfterChange(change.org, request);
      }),

    setImpactedTargets: (change, request) =>
      answering(request, () =>
        queues.updateQueue('setImpactedTargets', queueId(change.org, request), setImpactedTargetsUpdate, {
          updateId: change.updateId,
          args: [{ pr: request.pr.number, headSha: request.pr.sha, targets: request.impactedTargets }],
        }),
      ),

    getSubmittedPullRequest: (org, request) =>
      answering(request, async () => {
        const record = await queues.readPullRequest(
          prWorkflowId(queueKeyOf(org, request), request.pr.number),
        );
        if (!record) return null;
        const answer = wire.submittedPullRequest(record, links, request.targetBranch);
        if (request.includeTimeline) answer.timeline = timelineOf(record, links, request.targetBranch);
        if (request.includeEstimatedTimeToMerge) {
          const snapshot = record.isCurrentlySubmittedToQueue
            ? await readSnapshot('getQueue', org, request)
            : null;
          const queue = snapshot ? wire.queueView(snapshot) : null;
          const history =
            queue && options.testDurations
              ? await options.testDurations({
                  organisationId: org.id,
                  ...request.repo,
                  targetBranch: request.targetBranch,
                })
              : { testRuns: [], landings: [] };
          answer.estimatedTimeToMerge = estimateTimeToMerge({ record, queue, history, now: now() });
        }
        return answer;
      }),

    listPullRequests: (org, request) =>
      answering(request, async () => {
        if (projection) {
          // Whether the queue exists: its view's version, not its entries (1,000 PRs are 333 KB).
          const held = await projection.views.version(queueKeyOf(org, request));
          if (!(held && !held.deleted) && !(await askQueue('listPullRequests', org, request)))
            throw queueNotFound(request);
          return listRecords(projection.records, queueKeyOf(org, request), request, links);
        }
        const exists = await queues.readQueue('listPullRequests', queueId(org, request), () =>
          Promise.resolve(true),
        );
        if (!exists) throw queueNotFound(request);
        return listSubmissions(queues, queueKeyOf(org, request), request, links);
      }),

    getTestingDetails: (org, request) =>
      answering(request, async () => {
        const found = await queues.readQueue(
          'getMergeQueueTestingDetails',
          queueId(org, request),
          async (q) => ({ run: await q.query(getTestRunQuery, request.testRunId) }),
        );
        if (!found) throw queueNotFound(request);
        return found.run ? wire.testingDetails(found.run, request) : null;
      }),

    getTestRunsInProgress: (org, key) =>
      answering(key, async () => {
        const found = await queues.readQueue('getMergeQueueTestingDetails', queueId(org, key), async (q) => {
          const ids = ((await q.query(getQueueQuery)).testRunsInProgress ?? []).slice(
            0,
            MAX_RUNS_IN_PROGRESS_LISTED,
          );
          // Bounded fan-out, as listSubmissions: one query per run, QUERY_BATCH at a time.
          return inBatches(ids, (id) => q.query(getTestRunQuery, id));
        });
        if (!found) throw queueNotFound(key);
        return {
          // A run that ended between the two reads is left out: it is no longer in progress.
          testRuns: found
            .filter((run): run is TestRunDetails => run !== null && run.status === 'in_progress')
            .map((run) => ({ testRunId: run.testRunId, ...wire.testingDetails(run, key) })),
        };
      }),

    async readTestRunLog(org, testRunId) {
      const store = options.runLogs;
      const info = store ? await store.info(org.id, testRunId) : null;
      return store && info ? { info, chunk: (offset) => store.read(org.id, testRunId, offset) } : null;
    },

    reportTestStatus: (org, request) =>
      answering(request, () =>
        queues.signalQueue(
          'reportTestStatus',
          queueId(org, request),
          commitStatusSignal,
          wire.commitStatusReport(request),
        ),
      ),
  };
}
