/**
 * Updates the Temporal server gave up on before the workflow accepted them, read from the error the
 * TypeScript client throws. Such an update was applied nowhere, so the queue client sends it again with
 * the same update id (Temporal admits an id once per run, and the queue remembers the answers of the ids
 * it applied across continue-as-new), to the queue's current run.
 *
 * Temporal 1.x (server service/history/workflow/update, its abort matrix) ends an update it admitted but
 * no workflow accepted with:
 * - `task_failed`: FAILED_PRECONDITION (WorkflowNotReady) "Unable to perform workflow execution update
 *   due to unexpected workflow task failure." (the task that carried the update failed or timed out, as
 *   when a queue's continue-as-new task is refused with UnhandledCommand and the next one times out) or
 *   "... due to Workflow Task in failed state." (refused fast while the run's task keeps failing). The
 *   client throws a ServiceError "Workflow Update failed" with the gRPC error as its cause.
 * - `run_closed`: NOT_FOUND "workflow update was aborted by closing workflow", or "workflow execution
 *   already completed" when the update reached a run that had closed; the client throws a
 *   WorkflowNotFoundError with that message (no cause). Whether a next run exists is for the caller to
 *   ask: a queue that was deleted has none.
 * - `aborted`: UNAVAILABLE "workflow update was aborted" (the run's update registry was cleared and the
 *   server's own retries ran out), which its docs say the caller should send again.
 * An update refused while its run continues as new (RESOURCE_EXHAUSTED "workflow is closing") is busy,
 * retried by calls.ts. An update the workflow accepted is never lost this way: the server answers it
 * with its outcome (or AcceptedUpdateCompletedWorkflow, which the queue cannot cause: every update
 * completes in the task that accepted it, ADR 0005), so that is not sent again.
 *
 * Invariant: only these exact statuses and messages are read as lost; anything else is not.
 */
export type UpdateLoss = 'task_failed' | 'run_closed' | 'aborted';

const FAILED_PRECONDITION = 9;
const NOT_FOUND = 5;
const UNAVAILABLE = 14;

const LOSSES: readonly { loss: UpdateLoss; code: number; notFoundError: boolean; text: RegExp }[] = [
  {
    loss: 'task_failed',
    code: FAILED_PRECONDITION,
    notFoundError: false,
    text: /^Unable to perform workflow execution update due to (unexpected workflow task failure|Workflow Task in failed state)/,
  },
  {
    loss: 'run_closed',
    code: NOT_FOUND,
    notFoundError: true,
    text: /^(workflow update was aborted by closing workflow|workflow execution already completed)/,
  },
  { loss: 'aborted', code: UNAVAILABLE, notFoundError: false, text: /^workflow update was aborted$/ },
];

/** Why the server gave `err`'s update up unapplied, or null when `err` says nothing of the kind. */
export function updateLoss(err: unknown): UpdateLoss | null {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const { code, details } = e as { code?: unknown; details?: unknown };
    const text = typeof details === 'string' ? details : e.message;
    for (const l of LOSSES) {
      const shaped = code === l.code || (l.notFoundError && e.name === 'WorkflowNotFoundError');
      if (shaped && l.text.test(text)) return l.loss;
    }
  }
  return null;
}

/**
 * A lost update on its way out of a call (calls.ts), so that it is not read as Temporal not answering:
 * the original error is kept in `original`, not in `cause`, and the message names no outage.
 */
export class LostUpdate extends Error {
  override readonly name = 'LostUpdate';
  constructor(
    readonly loss: UpdateLoss,
    readonly original: unknown,
  ) {
    super(`The update was given up by the server unapplied (${loss}).`);
  }
}

/** Runs `send`, throwing a LostUpdate for an update the server gave up unapplied. */
export async function markLost<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    const loss = updateLoss(err);
    throw loss === null ? err : new LostUpdate(loss, err);
  }
}
