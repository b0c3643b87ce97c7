/**
 * Waiting in the end-to-end harnesses (local host and GitHub): poll a condition until it holds, and
 * read a PR's record (null until its workflow exists) and wait for it to reach a terminal state.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { isTerminal } from '../../engine';
import { getPullRequestQuery, prWorkflowId, type PullRequestRecord, type QueueKey } from '../../contract';

/** Polls `fn` every 200 ms until it answers something other than undefined or false. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** PR `n`'s record in queue `key`, or null before its workflow exists. */
export async function prRecord(client: Client, key: QueueKey, n: number): Promise<PullRequestRecord | null> {
  try {
    return await client.workflow.getHandle(prWorkflowId(key, n)).query(getPullRequestQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** Waits until PR `n`'s record reaches a terminal state. */
export function settledRecord(
  client: Client,
  key: QueueKey,
  n: number,
  timeoutMs?: number,
): Promise<PullRequestRecord> {
  return waitFor(
    `PR #${n} to finish`,
    async () => {
      const r = await prRecord(client, key, n);
      return r && isTerminal(r.state) ? r : undefined;
    },
    timeoutMs,
  );
}
