/**
 * A worker of the real workflows and activities on a task queue of one test's own, beside a queue
 * deployment (queue-harness.ts), for the stories that stop and start the queue's worker by hand to put
 * messages into one workflow task. It shares the deployment's git root, client and database, and the
 * run's one workflow bundle. `settledHistoryLength` waits for the workflow to go quiet without a clock
 * of its own: no task pending and a history that stopped growing for a second.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { QUEUE_WORKFLOW_TYPE, queueWorkflowId, type QueueKey, type QueueWorkflowInput } from '../../contract';
import { createActivities, type Activities } from '../../activities';
import { createLocalGitHost } from '../../git/local-git-host';
import { createProcessBroker, type ProcessBroker } from '../../platform/process-runner';
import { requireTestEnv } from './env';
import { startQueueDeployment, type QueueDeployment } from './queue-harness';

export interface TaskQueueWorker {
  /** Shuts the worker down and waits for its end; safe to call twice. */
  stop(): Promise<void>;
}

export async function startTaskQueueWorker(opts: {
  deployment: QueueDeployment;
  connection: NativeConnection;
  broker: ProcessBroker;
  taskQueue: string;
  identity: string;
  /** Wraps the real activities, e.g. to hold one at a gate of the test's. */
  wrap?: (real: Activities) => Activities;
}): Promise<TaskQueueWorker> {
  const d = opts.deployment;
  const real = createActivities({
    workerIdentity: opts.identity,
    gitHost: createLocalGitHost({ root: d.gitRoot, runner: opts.broker }),
    client: d.client,
    taskQueue: opts.taskQueue,
    pool: d.pool,
    allowPrivateWebhookUrls: true,
  });
  const worker = await Worker.create({
    connection: opts.connection,
    taskQueue: opts.taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: opts.wrap ? opts.wrap(real) : real,
  });
  const running = worker.run();
  let stopped = false;
  return {
    stop: async () => {
      if (!stopped) worker.shutdown();
      stopped = true;
      await running;
    },
  };
}

/** Until a workflow has no task pending and its history stopped growing for a second; its length then. */
export async function settledHistoryLength(d: QueueDeployment, workflowId: string): Promise<number> {
  let last = -1;
  for (;;) {
    const { historyLength, raw } = await d.client.workflow.getHandle(workflowId).describe();
    if (historyLength === last && !raw.pendingWorkflowTask) return historyLength;
    last = historyLength;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** One test file's task-queue stories: a deployment and a connection for their workers, for the file. */
export interface TaskQueueStories {
  deployment(): QueueDeployment;
  startWorker(opts: {
    taskQueue: string;
    identity: string;
    wrap?: (real: Activities) => Activities;
  }): Promise<TaskQueueWorker>;
  /**
   * Starts queue `key`'s workflow on `taskQueue` (concurrency 1), due to continue as new past
   * `continueAsNewAfterEvents` events (an idle first run's length, measured on a twin, makes it due at
   * its next task).
   */
  /** Starts the queue workflow of `key` on `taskQueue` (concurrency 1 unless `config` says otherwise). */
  startQueue(
    taskQueue: string,
    key: QueueKey,
    continueAsNewAfterEvents: number,
    config?: QueueWorkflowInput['config'],
  ): Promise<WorkflowHandle>;
}

/** Registers the file's hooks: the deployment and connection open before its tests and close after. */
export function useTaskQueueStories(): TaskQueueStories {
  let d: QueueDeployment | undefined;
  let native: NativeConnection | undefined;
  const broker = createProcessBroker();
  beforeAll(async () => {
    d = await startQueueDeployment();
    native = await NativeConnection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  }, 60_000);
  afterAll(async () => {
    await native?.close();
    broker.close();
    await d?.close();
  }, 60_000);
  const opened = () => {
    if (!d || !native) throw new Error('task-queue stories are used inside a test');
    return { d, native };
  };
  return {
    deployment: () => opened().d,
    startWorker: (opts) =>
      startTaskQueueWorker({ deployment: opened().d, connection: opened().native, broker, ...opts }),
    startQueue: (taskQueue, key, continueAsNewAfterEvents, config = { concurrency: 1 }) =>
      opened().d.client.workflow.start(QUEUE_WORKFLOW_TYPE, {
        workflowId: queueWorkflowId(key),
        taskQueue,
        args: [{ key, config, continueAsNewAfterEvents } satisfies QueueWorkflowInput],
      }),
  };
}
