/**
 * A worker of the real workflows and activities on a task queue of one test's own, beside a queue
 * deployment (queue-harness.ts), for the stories that stop and start the queue's worker by hand to put
 * messages into one workflow task. It shares the deployment's git root, client and database, and the
 * run's one workflow bundle. `settledHistoryLength` waits for the workflow to go quiet without a clock
 * of its own: no task pending and a history that stopped growing for a second.
 */
import { Worker, type NativeConnection } from '@temporalio/worker';
import { createActivities, type Activities } from '../../activities';
import { createLocalGitHost } from '../../git/local-git-host';
import type { ProcessBroker } from '../../platform/process-runner';
import { requireTestEnv } from './env';
import type { QueueDeployment } from './queue-harness';

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
