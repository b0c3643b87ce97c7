/**
 * A host hint and a submit in one workflow task replay as they ran (issue 25; bench/README.md, "Seen in
 * one of three runs of that test"). Temporal's worker core hands such a task's messages to the workflow
 * in one order live and in another on replay: live it handed this submit over before the hint; on
 * replay, the updates a task accepted come after all of its events (sdk-core's
 * apply_next_wft_from_history). The queue's handlers therefore only record what arrived; its loop starts
 * the activities (the hint's read, the submission's read) after all of the task's messages, in an order
 * of its own, and every update completes after that turn of the loop. When the hint's handler started
 * its read itself, this history failed replay with "Activity machine does not handle this event:
 * WorkflowExecutionUpdateAccepted", in every run (3 of 3, also when the task carrying the submit had
 * first timed out or failed once).
 *
 * Here on the real Temporal and the real queue workflow, without relying on timing: the queue's worker is
 * stopped, a submit is sent and waited for until the server admitted it, then a target hint is sent, and
 * a worker is started again: its first task carries both. The test checks that this is what happened
 * (from the history), then replays the history in a child process.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { createProcessBroker } from '../../platform/process-runner';
import {
  getQueueQuery,
  hostHintSignal,
  QUEUE_WORKFLOW_TYPE,
  queueWorkflowId,
  submitUpdate,
  type QueueWorkflowInput,
} from '../../contract';
import { tsNode } from '../../scripts/lib/ts-node';
import { requireTestEnv } from '../support/env';
import { recordHistory } from '../support/histories';
import { startQueueDeployment, type QueueDeployment } from '../support/queue-harness';
import { settledHistoryLength, startTaskQueueWorker } from '../support/task-queue-worker';

const ROOT = path.resolve(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let d: QueueDeployment;
let native: NativeConnection;
const broker = createProcessBroker();
let dir: string;

beforeAll(async () => {
  d = await startQueueDeployment();
  native = await NativeConnection.connect({ address: requireTestEnv('TEST_TEMPORAL_ADDRESS') });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hint-and-update-'));
}, 60_000);
afterAll(async () => {
  await native?.close();
  broker.close();
  await d?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

const startWorker = (taskQueue: string) =>
  startTaskQueueWorker({ deployment: d, connection: native, broker, taskQueue, identity: 'hint-and-update' });
const settle = async (workflowId: string) => void (await settledHistoryLength(d, workflowId));

/** Until the server has admitted the update (it waits there for a worker). */
async function admitted(workflowId: string, updateId: string): Promise<void> {
  const Stage = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
  for (let tries = 0; ; tries++) {
    const ok = await d.client.workflowService
      .pollWorkflowExecutionUpdate({
        namespace: 'default',
        updateRef: { workflowExecution: { workflowId }, updateId },
        identity: 'hint-and-update',
        waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED },
      })
      .then(
        () => true,
        () => false, // not registered yet
      );
    if (ok) return;
    if (tries > 50) throw new Error('the server never admitted the submit');
    await sleep(200);
  }
}

/** Replays the workflow's history (saved as the CLI prints it) against the bundle; the script's output. */
function replay(workflowId: string): string {
  const json = execFileSync(
    requireTestEnv('TEST_TEMPORAL_CLI'),
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--output',
      'json',
      '--address',
      requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const file = path.join(dir, 'history.json');
  fs.writeFileSync(file, JSON.stringify({ workflowId, history: JSON.parse(json) as unknown }));
  const [cmd, args] = tsNode('test/support/replay-files.ts', requireTestEnv('TEST_WORKFLOW_BUNDLE'), file);
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

test('a target hint and a submit in one workflow task replay as they ran', async () => {
  const taskQueue = `hint-and-update-${randomUUID()}`;
  const h = await d.newQueue({ command: 'true' });
  const queue = d.client.workflow.getHandle(h.workflowId);
  let worker = await startWorker(taskQueue);
  try {
    await d.client.workflow.start(QUEUE_WORKFLOW_TYPE, {
      workflowId: queueWorkflowId(h.key),
      taskQueue,
      args: [{ key: h.key, config: { concurrency: 1 } } satisfies QueueWorkflowInput],
    });
    await settle(h.workflowId);
    h.openPr(1, { 'one.txt': '1\n' });
    await worker.stop();

    const updateId = randomUUID();
    const submitted = queue.executeUpdate(submitUpdate, {
      updateId,
      args: [{ pr: 1, priority: null, noBatch: false }],
    });
    submitted.catch(() => undefined);
    await admitted(h.workflowId, updateId);
    await queue.signal(hostHintSignal, { kind: 'target', branch: h.key.targetBranch });
    worker = await startWorker(taskQueue);
    expect((await submitted).resubmitted).toBe(false);
    await h.waitFor('PR 1 in the queue', async () =>
      (await queue.query(getQueueQuery)).enqueued.some((e) => e.pr === 1),
    );
    await settle(h.workflowId);

    // The case this is about: the submit was accepted in the task that took the hint.
    const events = (await queue.fetchHistory()).events ?? [];
    const id = (e: (typeof events)[number]) => Number(e.eventId);
    const hint = events.find(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === hostHintSignal.name,
    );
    const accepted = events.find(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId,
    );
    expect(hint && accepted).toBeTruthy();
    const completedBetween = events.filter(
      (e) => e.workflowTaskCompletedEventAttributes && id(e) > id(hint!) && id(e) < id(accepted!),
    );
    expect(completedBetween).toHaveLength(1); // the task that took both
    // Its reads were both made: the hint's and the submission's.
    const scheduled = events
      .filter((e) => id(e) > id(hint!))
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(scheduled).toEqual(expect.arrayContaining(['readTargetTip', 'readPullRequest']));

    expect(replay(h.workflowId)).toContain('1 passed, 0 failed');
    recordHistory('queue-hint-and-update', h.workflowId);
  } finally {
    await worker.stop();
    await h.close();
  }
}, 120_000);
