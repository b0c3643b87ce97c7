/**
 * One merge queue on the benchmark stack (stack.ts), driven as CI drives it: a real worker with the
 * production activities, an unsandboxed executor (the runs' command is `true`), a queue workflow with
 * the given settings, and helpers to open a PR on the repository, submit it and wait for its end.
 * Shared by `bench:queue`'s burst and serial runs and by the continuous-load run, so all three measure
 * the same deployment.
 *
 * Invariant: `close()` stops what `startQueueDeployment` started (executor, worker, connections) and
 * nothing of the stack's; the caller stops the stack.
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { createRepositoryOwnerStore } from '../../stores/repository-owners';
import { isTerminal, type QueueConfigPatch } from '../../engine';
import {
  getPullRequestQuery,
  prWorkflowId,
  QUEUE_WORKFLOW_TASK_TIMEOUT,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  type PullRequestRecord,
  type QueueKey,
  type QueueWorkflow,
  type QueueWorkflowInput,
} from '../../contract';
import { createQueueClient, createTemporalCalls } from '../../queue-client';
import { startTestExecutor } from '../../test/support/executor';
import type { BenchStack } from '../lib/stack';
import { startBenchWorker } from '../lib/worker';

export interface QueueDeployment {
  client: Client;
  key: QueueKey;
  queue: WorkflowHandle;
  /** The queue workflow's first run, where its chain of continue-as-new starts. */
  firstRunId: string;
  /** Pushes PR `n` (one new file on the tip of main) to the repository. */
  open(n: number): void;
  /**
   * Submits PR `n` as the API does (the queue client: its update slots, busy retries and resends
   * across continue-as-new) and waits until the queue admitted it; many may run at once.
   */
  submit(n: number): Promise<void>;
  /** PR `n`'s record, or null before its workflow answers. */
  record(n: number): Promise<PullRequestRecord | null>;
  /**
   * Waits for PR `n` to end, asking its workflow every `pollMs` (default 20: the serial run's latency
   * resolution; a burst's wait asks less often, its queries being CPU the queue would use); notes it
   * in `mergedPrs` and its runs in `testRunIds`.
   */
  settled(n: number, pollMs?: number): Promise<PullRequestRecord>;
  mergedPrs: Set<number>;
  testRunIds: Set<string>;
  close(): Promise<void>;
}

export async function startQueueDeployment(
  stack: BenchStack,
  config: QueueConfigPatch,
  taskQueue = 'bench',
): Promise<QueueDeployment> {
  const { address, pool, fx } = stack;
  const bench = await startBenchWorker(stack, taskQueue);
  const { client } = bench;
  // The queue's runs go to an executor (issue 17), unsandboxed like the baseline's runner: the
  // difference measured includes the content hand-off (bundle, HTTP), not bwrap's start.
  const executor = await startTestExecutor({
    controlTaskQueue: taskQueue,
    pool,
    sandbox: false,
    temporalAddress: address,
  });
  const key: QueueKey = { organisationId: randomUUID(), repo: fx.repo, targetBranch: 'main' };
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [
    key.organisationId,
    `bench-${key.organisationId.slice(0, 8)}`,
  ]);
  await createRepositoryOwnerStore(pool).claim(key.organisationId, key.repo, 'operator');
  const queue = client.workflow.getHandle(queueWorkflowId(key));
  const started = await client.workflow.start<QueueWorkflow>(QUEUE_WORKFLOW_TYPE, {
    workflowId: queueWorkflowId(key),
    taskQueue,
    workflowTaskTimeout: QUEUE_WORKFLOW_TASK_TIMEOUT,
    args: [{ key, config } satisfies QueueWorkflowInput],
  });
  // The API's own path to the queue, so submits at once queue for Temporal's in-flight updates as
  // the API's do instead of failing with RESOURCE_EXHAUSTED.
  const queues = createQueueClient(
    createTemporalCalls(client, { namespace: client.options.namespace, callTimeoutMs: 10_000 }),
  );
  const mergedPrs = new Set<number>();
  const testRunIds = new Set<string>();
  const record = (n: number) =>
    client.workflow
      .getHandle(prWorkflowId(key, n))
      .query(getPullRequestQuery)
      .catch(() => null);
  return {
    client,
    key,
    queue,
    firstRunId: started.firstExecutionRunId,
    open(n) {
      fx.git('fetch', '--quiet', 'origin');
      fx.branchFrom(`pr-${n}`, 'origin/main');
      fx.pushPr(n, fx.commit(`PR ${n}`, { [`f${n}.txt`]: `${n}\n` }));
    },
    async submit(n) {
      const { submissionId } = await queues.updateQueue('submitPullRequest', queue.workflowId, submitUpdate, {
        updateId: randomUUID(),
        args: [{ pr: n, priority: null, noBatch: false }],
      });
      const outcome = await queues.waitForAdmission(queue.workflowId, submissionId);
      if (outcome.state === 'rejected') throw new Error(`PR ${n} refused: ${outcome.message}`);
    },
    record,
    async settled(n, pollMs = 20) {
      for (;;) {
        const r = await record(n);
        if (r && isTerminal(r.state)) {
          if (r.state === 'merged') mergedPrs.add(n);
          for (const t of r.timeline) if (t.testRunId) testRunIds.add(t.testRunId);
          return r;
        }
        await new Promise((res) => setTimeout(res, pollMs));
      }
    },
    mergedPrs,
    testRunIds,
    async close() {
      await executor.close();
      await bench.close();
    },
  };
}
