/**
 * Ending one queue's workflows at the end of a test, so the next test on the same deployment (worker,
 * executor) starts from an idle one: the queue workflow first (nothing new starts), then its test runs
 * (the executor's heartbeat learns the run is gone and stops its command, freeing the slot) and its PR
 * workflows. What the harness knows is ended by id; a visibility listing by id prefix catches the rest.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  getQueueQuery,
  prWorkflowId,
  queueWorkflowId,
  testRunWorkflowId,
  type QueueKey,
} from '../../contract';

const REASON = 'the test is over: its harness ends the queue';
const quote = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

async function terminate(client: Client, workflowId: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).terminate(REASON);
  } catch (err) {
    // Never started, or ended already (terminating a closed workflow answers "not found" too).
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

async function runningWithPrefix(client: Client, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowId STARTS_WITH ${quote(prefix)} AND ExecutionStatus = "Running"`;
  for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
  return ids;
}

export async function endQueueWorkflows(client: Client, key: QueueKey, prNumbers: number[]): Promise<void> {
  const queue = client.workflow.getHandle(queueWorkflowId(key));
  let runIds: string[] = [];
  try {
    if ((await queue.describe()).status.name === 'RUNNING') {
      // A query needs a worker; with none left (a test that killed it) the listing below has to do.
      const snapshot = await Promise.race([
        queue.query(getQueueQuery).catch(() => null),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000).unref()),
      ]);
      runIds = snapshot?.testRunsInProgress ?? [];
    }
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  await terminate(client, queueWorkflowId(key));
  const listed = await Promise.all([
    runningWithPrefix(client, testRunWorkflowId(key, '')),
    runningWithPrefix(client, prWorkflowId(key, 0).slice(0, -1)),
  ]);
  const ids = new Set([
    ...runIds.map((id) => testRunWorkflowId(key, id)),
    ...prNumbers.map((n) => prWorkflowId(key, n)),
    ...listed.flat(),
  ]);
  await Promise.all([...ids].map((id) => terminate(client, id)));
}
