/**
 * The queue client: the one Temporal-level client of the queue and PR workflows, used by the API and
 * the GitHub handlers. Every queue is a `queueWorkflow` (contract names it); changes are its updates,
 * reads its queries, notifications its signals. Every submission of a PR is a run of a
 * `pullRequestWorkflow`, read with a query (or its result once finished) and listed through visibility.
 *
 * Rules and invariants:
 * - Callers address workflows by the contract's ids (contract/ids.ts), which start with the
 *   organisation: no call reaches another organisation's queue or PR unless its caller built that id.
 * - Every call goes through `temporal.call` (calls.ts): a deadline, `unavailable` when Temporal or the
 *   worker does not answer, and updates and queries of one workflow wait their turn for its slots.
 * - A queue exists while its workflow runs: a read of a queue that never ran or ended is null; a change
 *   or signal to it fails with `queue_not_found`; a start where one runs fails with `queue_exists`.
 * - Changes carry the caller's update id, so Temporal applies a retried change once.
 * - A change still waiting at its deadline is waited on again while the queue moves (a worker holds its
 *   task, or took the last one within a call timeout), within the busy budget; a queue whose task
 *   waits for a worker longer than that, or keeps failing, is `unavailable` (calls.ts).
 * - The queue's refusals (ApplicationFailures typed by QueueRejection) become `rejected` with the
 *   failure's own sentence; any other failure is passed on untouched.
 * - A change that reached the queue without being applied is sent again, with the same update id, to
 *   the run that runs now, until it is taken or the busy budget runs out (then `busy`, or the refusal):
 *   one the queue refused because it is continuing as new (`continuing`), and one the server gave up
 *   before the queue accepted it (lost-update.ts: its workflow task failed or timed out, as when it
 *   arrived while the queue's task continuing as new completed, or its run closed). Temporal admits an
 *   id once per run and the queue answers an id it applied with its first answer across
 *   continue-as-new, so a change is applied at most once. A lost change finds no running run only when
 *   the queue was deleted: `queue_not_found`.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type SignalDefinition,
  type UpdateDefinition,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  getPullRequestQuery,
  QUEUE_WORKFLOW_TASK_TIMEOUT,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  REPOSITORY,
  repositoryLabel,
  TARGET_BRANCH,
  type PullRequestRecord,
  type QueueKey,
  type QueueRejection,
  type QueueWorkflow,
  type QueueWorkflowInput,
} from '../contract';
import { tsToMs } from '@temporalio/common/lib/time';
import { createAdmissionWatcher, type AdmissionOutcome } from './admission';
import { inBatches } from './batches';
import type { TemporalCalls } from './calls';
import { isQueueProblem, QueueClientError } from './errors';
import { LostUpdate, markLost } from './lost-update';

/** What a read may ask a running queue workflow. */
export type QueueReader = Pick<WorkflowHandle, 'query'>;

/** One run of a workflow, as visibility lists it. */
export interface WorkflowRun {
  workflowId: string;
  runId?: string;
}

export interface WorkflowPage {
  runs: WorkflowRun[];
  /** Visibility's token of the next page; null after the last one. */
  nextPageToken: Uint8Array | null;
}

export interface QueueClient {
  /** The default admission budget (calls.ts busy budget). */
  readonly busyBudgetMs: number;
  /** Starts the queue workflow of `input.key`, with its search attributes; `queue_exists` if one runs. */
  startQueue(input: QueueWorkflowInput, labels: { organisationSlug: string }): Promise<void>;
  /**
   * Runs `read` against the queue workflow if it runs; null if it does not. `timeoutMs`: a longer
   * deadline than the call timeout, for callers off the request path (calls.ts CallOptions).
   */
  readQueue<T>(
    what: string,
    workflowId: string,
    read: (queue: QueueReader) => Promise<T>,
    options?: { timeoutMs?: number },
  ): Promise<T | null>;
  /**
   * The first of `keys` whose queue workflow runs (each id asked once, in order), with what `read`
   * returned of it; null when none runs.
   */
  findQueue<T>(
    what: string,
    keys: readonly QueueKey[],
    read: (queue: QueueReader) => Promise<T>,
    options?: { timeoutMs?: number },
  ): Promise<{ workflowId: string; value: T } | null>;
  /** One update of the queue under `updateId`, waiting its turn for an update slot. */
  updateQueue<Ret, Args extends unknown[]>(
    what: string,
    workflowId: string,
    def: UpdateDefinition<Ret, Args>,
    /** `timeoutMs`: each attempt's deadline instead of the call timeout, for a caller off the request path. */
    options: { updateId: string; args: Args; timeoutMs?: number },
  ): Promise<Ret>;
  /** One signal to the queue's current run. */
  signalQueue<Args extends unknown[]>(
    what: string,
    workflowId: string,
    def: SignalDefinition<Args>,
    ...args: Args
  ): Promise<void>;
  /** How the queue's admission of a submission ended (admission.ts). */
  waitForAdmission(workflowId: string, submissionId: string, budgetMs?: number): Promise<AdmissionOutcome>;
  /**
   * A submission's record: a finished run's result (read from history, no worker needed), a running
   * one's query; null when there is no such workflow.
   */
  readPullRequest(workflowId: string, runId?: string): Promise<PullRequestRecord | null>;
  /** Each run's record, QUERY_BATCH at a time (batches.ts), in the order given. */
  readPullRequests(runs: readonly WorkflowRun[]): Promise<(PullRequestRecord | null)[]>;
  /** One visibility page of the workflows `query` selects (visibility.ts builds queries). */
  listWorkflows(
    what: string,
    query: string,
    page: { pageSize: number; nextPageToken?: Uint8Array },
  ): Promise<WorkflowPage>;
}

const REJECTIONS: Record<QueueRejection, true> = {
  not_found: true,
  deleted: true,
  not_empty: true,
  invalid: true,
  unavailable: true,
  continuing: true,
};

function isRejection(type: string | null | undefined): type is QueueRejection {
  return typeof type === 'string' && Object.hasOwn(REJECTIONS, type);
}

/** The QueueClientError a failed change or signal stands for, or the error itself. */
function asQueueError(err: unknown, workflowId: string): unknown {
  if (err instanceof WorkflowNotFoundError)
    return new QueueClientError({ kind: 'queue_not_found', workflowId }, { cause: err });
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const { type, message } = err.cause;
    if (isRejection(type))
      return new QueueClientError({ kind: 'rejected', rejection: type, message }, { cause: err });
  }
  return err;
}

/** The longest pause before asking a queue that is continuing as new again. */
const CONTINUING_PAUSE_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isContinuing = (err: unknown) =>
  isQueueProblem(err, 'rejected') && err.problem.rejection === 'continuing';

/** PendingWorkflowTaskState SCHEDULED: no worker has taken the task yet. */
const TASK_SCHEDULED = 1;

/**
 * Whether a queue is working through what is ahead of an update (calls.ts `moving`): its run closed
 * (the update's next attempt learns where it went), it has no task pending (the last one just
 * completed), or its task is held by a worker or was scheduled less than `stalledAfterMs` ago, and
 * has not failed (attempt 1). By the server's clock against ours: a skew shifts the verdict by itself,
 * and the busy budget still bounds the wait.
 */
async function isMoving(handle: WorkflowHandle, stalledAfterMs: number): Promise<boolean> {
  const { status, raw } = await handle.describe();
  const task = raw.pendingWorkflowTask;
  if (status.name !== 'RUNNING' || !task) return true;
  if ((task.attempt ?? 1) > 1) return false;
  if (Number(task.state) !== TASK_SCHEDULED) return true;
  const since = task.originalScheduledTime ?? task.scheduledTime;
  return !since || Date.now() - tsToMs(since) < stalledAfterMs;
}

const isRunning = async (handle: WorkflowHandle) => (await handle.describe()).status.name === 'RUNNING';

export function createQueueClient(temporal: TemporalCalls): QueueClient {
  const { client } = temporal;
  const admissions = createAdmissionWatcher(temporal);

  async function readQueue<T>(
    what: string,
    workflowId: string,
    read: (queue: QueueReader) => Promise<T>,
    options: { timeoutMs?: number } = {},
  ): Promise<T | null> {
    const handle = client.workflow.getHandle(workflowId);
    try {
      return await temporal.call(what, async () => ((await isRunning(handle)) ? read(handle) : null), {
        queryOf: workflowId,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /** Whether a run of the queue workflow runs now (after a lost update: a deleted queue has none). */
  async function queueRuns(handle: WorkflowHandle): Promise<boolean> {
    try {
      return await temporal.call('describeQueue', () => isRunning(handle));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  async function updateQueue<Ret, Args extends unknown[]>(
    what: string,
    workflowId: string,
    def: UpdateDefinition<Ret, Args>,
    options: { updateId: string; args: Args; timeoutMs?: number },
  ): Promise<Ret> {
    const { timeoutMs, ...update } = options;
    const handle = client.workflow.getHandle(workflowId);
    const deadline = Date.now() + temporal.busyBudgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await temporal.call(
          what,
          // The client's overloads tell a definition with arguments from one without; both take these.
          () =>
            markLost(() =>
              handle.executeUpdate(
                def as unknown as UpdateDefinition<Ret, [unknown]>,
                update as unknown as { updateId: string; args: [unknown] },
              ),
            ),
          {
            updateOf: workflowId,
            moving: () => isMoving(handle, temporal.callTimeoutMs),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          },
        );
      } catch (err) {
        const again = Date.now() + CONTINUING_PAUSE_MS < deadline;
        const pause = () => sleep(Math.min(CONTINUING_PAUSE_MS, 20 * 2 ** attempt));
        if (err instanceof LostUpdate) {
          // Given up unapplied (lost-update.ts), as when it reached a run continuing as new: the same
          // update id again, to the run that runs now. A queue with no running run was deleted.
          if (!(await queueRuns(handle)))
            throw new QueueClientError({ kind: 'queue_not_found', workflowId }, { cause: err.original });
          if (!again)
            throw new QueueClientError(
              { kind: 'busy', what, budgetMs: temporal.busyBudgetMs },
              { cause: err.original },
            );
          await pause();
          continue;
        }
        const failure = asQueueError(err, workflowId);
        // The queue is continuing as new (a moment): the same update id again, on its next run.
        if (isContinuing(failure) && again) {
          await pause();
          continue;
        }
        throw failure;
      }
    }
  }

  async function readPullRequest(workflowId: string, runId?: string): Promise<PullRequestRecord | null> {
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
    busyBudgetMs: temporal.busyBudgetMs,

    async startQueue(input, { organisationSlug }) {
      const { taskQueue } = temporal;
      if (taskQueue === undefined) throw new Error('This queue client has no task queue to start queues on.');
      const workflowId = queueWorkflowId(input.key);
      const label = repositoryLabel(input.key.repo);
      try {
        await temporal.call('createQueue', () =>
          client.workflow.start<QueueWorkflow>(QUEUE_WORKFLOW_TYPE, {
            workflowId,
            taskQueue,
            args: [input],
            workflowIdConflictPolicy: 'FAIL',
            // Continue-as-new keeps it.
            workflowTaskTimeout: QUEUE_WORKFLOW_TASK_TIMEOUT,
            typedSearchAttributes: [
              { key: REPOSITORY, value: label },
              { key: TARGET_BRANCH, value: input.key.targetBranch },
            ],
            staticSummary: `Merge queue of ${label}, branch "${input.key.targetBranch}" (organisation ${organisationSlug})`,
          }),
        );
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError)
          throw new QueueClientError({ kind: 'queue_exists', workflowId }, { cause: err });
        throw err;
      }
    },

    readQueue,

    async findQueue(what, keys, read, options) {
      for (const workflowId of new Set(keys.map(queueWorkflowId))) {
        const found = await readQueue(
          what,
          workflowId,
          async (queue) => ({ value: await read(queue) }),
          options,
        );
        if (found !== null) return { workflowId, value: found.value };
      }
      return null;
    },

    updateQueue,

    async signalQueue(what, workflowId, def, ...args) {
      try {
        await temporal.call(what, () => client.workflow.getHandle(workflowId).signal(def, ...args));
      } catch (err) {
        throw asQueueError(err, workflowId);
      }
    },

    waitForAdmission: (workflowId, submissionId, budgetMs) =>
      admissions.wait(workflowId, submissionId, budgetMs),

    readPullRequest,

    readPullRequests: (runs) => inBatches(runs, (r) => readPullRequest(r.workflowId, r.runId)),

    async listWorkflows(what, query, { pageSize, nextPageToken }) {
      const page = await temporal.call(what, () =>
        client.workflowService.listWorkflowExecutions({
          namespace: temporal.namespace,
          query,
          pageSize,
          ...(nextPageToken ? { nextPageToken } : {}),
        }),
      );
      const token = page.nextPageToken;
      return {
        runs: page.executions.flatMap(({ execution: e }) =>
          e?.workflowId ? [{ workflowId: e.workflowId, ...(e.runId ? { runId: e.runId } : {}) }] : [],
        ),
        nextPageToken: token && token.length > 0 ? token : null,
      };
    },
  };
}
