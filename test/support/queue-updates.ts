/**
 * A queue update sent straight through the Temporal client, as the queue client sends it: a refusal
 * because the queue is continuing as new (`continuing`: nothing was applied), or an update the server
 * gave up unapplied (queue-client/lost-update.ts: the task that carried it failed as the queue
 * continued as new), is sent again with the same update id, so a test or benchmark that drives a queue
 * past continue-as-new does not see it.
 */
import { randomUUID } from 'node:crypto';
import {
  ApplicationFailure,
  WorkflowUpdateFailedError,
  type UpdateDefinition,
  type WorkflowHandle,
} from '@temporalio/client';
import { updateLoss } from '../../queue-client/lost-update';

const isContinuing = (err: unknown) =>
  err instanceof WorkflowUpdateFailedError &&
  err.cause instanceof ApplicationFailure &&
  err.cause.type === 'continuing';

export async function executeQueueUpdate<Ret, Args extends unknown[]>(
  handle: WorkflowHandle,
  def: UpdateDefinition<Ret, Args>,
  options: { args: Args; updateId?: string },
  budgetMs = 30_000,
): Promise<Ret> {
  const updateId = options.updateId ?? randomUUID();
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      return await handle.executeUpdate(
        def as unknown as UpdateDefinition<Ret, [unknown]>,
        { args: options.args, updateId } as unknown as { args: [unknown]; updateId: string },
      );
    } catch (err) {
      if (!(isContinuing(err) || updateLoss(err) !== null) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
