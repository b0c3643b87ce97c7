/**
 * A submit the Temporal server gave up on while the queue continued as new is sent again by the queue
 * client and applied exactly once (issue 25, PR 1086 of bench:continuous). There the submit arrived
 * while the queue's task continuing as new completed: the server refused the completion
 * (UnhandledCommand), ended the submit with FAILED_PRECONDITION "unexpected workflow task failure",
 * and the client passed that on as an error although nothing had been applied.
 *
 * Here the same on the real Temporal and the real queue workflow, without relying on timing: the queue
 * runs on a task queue of this test, due to continue as new at its next task (the threshold is the
 * length of an idle first run, measured on a twin queue). Its worker is stopped; the task carrying the
 * submit is taken by hand and completed with continue-as-new while a signal arrives, so the server
 * refuses it as it did in the bench; a new worker then continues the queue as new. The queue client
 * must send the submit again, with the same update id: the queue holds it, and across all its runs
 * exactly one accepted it.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import {
  commitStatusSignal,
  getQueueQuery,
  QUEUE_WORKFLOW_TYPE,
  submitUpdate,
  type SubmitResult,
} from '../../contract';
import { createQueueClient, createTemporalCalls, type TemporalCalls } from '../../queue-client';
import { LostUpdate } from '../../queue-client/lost-update';
import { settledHistoryLength, useTaskQueueStories } from '../support/task-queue-worker';

const EventType = temporal.api.enums.v1.EventType;

const stories = useTaskQueueStories();
const startWorker = (taskQueue: string) => stories.startWorker({ taskQueue, identity: 'lost-update' });

test('a submit the server gave up as the queue continued as new is sent again and applied once', async () => {
  const taskQueue = `lost-update-${randomUUID()}`;
  const d = stories.deployment();
  const settledLength = (workflowId: string) => settledHistoryLength(d, workflowId);
  const h = await d.newQueue({ command: 'true' });
  const twin = await d.newQueue({ command: 'true' });
  const start = (key: typeof h.key, continueAsNewAfterEvents: number) =>
    stories.startQueue(taskQueue, key, continueAsNewAfterEvents);
  const calls = createTemporalCalls(d.client, { namespace: 'default', callTimeoutMs: 20_000 });
  const losses: LostUpdate[] = [];
  const observed: TemporalCalls = {
    ...calls,
    call: (what, fn, options) =>
      calls.call(
        what,
        () =>
          fn().catch((err: unknown) => {
            if (err instanceof LostUpdate) losses.push(err);
            throw err;
          }),
        options,
      ),
  };
  const queues = createQueueClient(observed);
  let worker = await startWorker(taskQueue);
  try {
    // An idle first run's length, from a twin never due: the queue is due at its next task after it.
    await start(twin.key, 10_000);
    const idle = await settledLength(twin.workflowId);
    await start(h.key, idle);
    expect(await settledLength(h.workflowId)).toBe(idle);
    const queue = d.client.workflow.getHandle(h.workflowId);
    const firstRun = (await queue.describe()).runId;
    h.openPr(1, { 'one.txt': '1\n' });
    await worker.stop();

    const updateId = randomUUID();
    const submitted = queues.updateQueue('submitPullRequest', h.workflowId, submitUpdate, {
      updateId,
      args: [{ pr: 1, priority: null, noBatch: false }],
    });
    submitted.catch(() => undefined);
    // The submit's task, taken by hand: the task the queue continues as new in, completed while a
    // signal arrives, so the server refuses the completion (UnhandledCommand) with the submit unapplied.
    const poll = () =>
      d.client.connection.withDeadline(Date.now() + 30_000, () =>
        d.client.workflowService.pollWorkflowTaskQueue({
          namespace: 'default',
          taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          identity: 'the task continuing as new',
        }),
      );
    let task = await poll();
    for (let polls = 1; !(task.messages ?? []).some((m) => m.protocolInstanceId === updateId); polls++) {
      if (polls > 5) throw new Error('no workflow task carried the submit');
      task = await poll();
    }
    // A status of a commit the queue does not test: an event that issues no command. (A hint beside
    // a submit in one task once replayed in another order than it ran, when its handler started a read;
    // handlers only record now, ADR 0023, and hint-and-update-in-one-task.test.ts covers that case.)
    await queue.signal(commitStatusSignal, {
      sha: '0'.repeat(40),
      context: 'ci',
      state: 'success',
      url: null,
      description: null,
    });
    const started = task.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    const refused = await d.client.workflowService
      .respondWorkflowTaskCompleted({
        namespace: 'default',
        taskToken: task.taskToken,
        identity: 'the task continuing as new',
        commands: [
          {
            commandType: temporal.api.enums.v1.CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
            continueAsNewWorkflowExecutionCommandAttributes: {
              workflowType: { name: QUEUE_WORKFLOW_TYPE },
              taskQueue: { name: taskQueue },
              input: started?.input ?? null,
            },
          },
        ],
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    // The next worker continues the queue as new.
    worker = await startWorker(taskQueue);

    const result: SubmitResult = await submitted;
    // The completion was refused as in bench:continuous, and the server gave the submit up (the old
    // client ended there, with ServiceError "Workflow Update failed").
    expect(String(refused)).toMatch(/UnhandledCommand/);
    expect(result.resubmitted).toBe(false);
    expect(losses.map((l) => l.loss)).toContain('task_failed');

    // The queue holds it, and across its runs exactly one accepted it.
    const snapshot = await h.waitFor('PR 1 in the queue', async () => {
      const s = await queue.query(getQueueQuery);
      return s.enqueued.some((e) => e.pr === 1) ? s : undefined;
    });
    expect(snapshot.enqueued.filter((e) => e.pr === 1)).toHaveLength(1);
    const runs: string[] = [];
    let accepted = 0;
    let failedTasks = 0;
    for (let runId: string | undefined = firstRun; runId;) {
      runs.push(runId);
      const events = (await d.client.workflow.getHandle(h.workflowId, runId).fetchHistory()).events ?? [];
      let next: string | undefined;
      for (const e of events) {
        if (e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId)
          accepted++;
        if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) failedTasks++;
        next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? next;
      }
      runId = next;
    }
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(failedTasks).toBeGreaterThanOrEqual(1);
    expect(accepted).toBe(1);
  } finally {
    await worker.stop();
    await twin.close();
    await h.close();
  }
}, 120_000);
