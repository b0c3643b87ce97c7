/**
 * What a call to the queue client can fail with on purpose, as one error class whose `problem` is a
 * discriminated union (`problem.kind`). Callers switch on the kind and word it for their own audience:
 * the API as HTTP errors (api/errors.ts), the GitHub handlers as a reply on the PR.
 *
 * Rules:
 * - Only what the queue client knows is named here: Temporal or the worker did not answer in time, a
 *   workflow was too busy, an admission did not end in time, the queue workflow is missing or already
 *   running, the queue refused a change with one of its QueueRejection types. No HTTP status.
 * - Anything else (an unknown failure type, a programming error) is passed on untouched, never wrapped,
 *   so it is not mistaken for an answer.
 * - The message is one sentence for logs; callers that show a sentence to a person take the facts from
 *   `problem`, except `rejected`, whose message is the queue's own sentence.
 */
import type { QueueRejection } from '../contract';

export type QueueProblem =
  /** Temporal or the railyard worker did not answer `what` within the call deadline. */
  | { kind: 'unavailable'; what: string; timeoutMs: number }
  /** The workflow's slots and RESOURCE_EXHAUSTED retries outlasted the busy budget. */
  | { kind: 'busy'; what: string; budgetMs: number }
  /** The queue did not report the submission settled or rejected within the admission budget. */
  | { kind: 'admission_timeout'; submissionId: string; budgetMs: number }
  /** No queue workflow runs under the id (never started, deleted, or ended meanwhile). */
  | { kind: 'queue_not_found'; workflowId: string }
  /** A queue workflow already runs under the id a start asked for. */
  | { kind: 'queue_exists'; workflowId: string }
  /** The queue refused the change (its ApplicationFailure, typed by QueueRejection). */
  | { kind: 'rejected'; rejection: QueueRejection; message: string };

function messageOf(p: QueueProblem): string {
  switch (p.kind) {
    case 'unavailable':
      return `The merge queue did not answer ${p.what} within ${p.timeoutMs} ms; Temporal or the railyard worker is unavailable.`;
    case 'busy':
      return `The merge queue was too busy to answer ${p.what} within ${p.budgetMs} ms.`;
    case 'admission_timeout':
      return `The merge queue did not finish admitting submission ${p.submissionId} within ${p.budgetMs} ms.`;
    case 'queue_not_found':
      return `No queue workflow runs under ${p.workflowId}.`;
    case 'queue_exists':
      return `A queue workflow already runs under ${p.workflowId}.`;
    case 'rejected':
      return p.message;
  }
}

export class QueueClientError<P extends QueueProblem = QueueProblem> extends Error {
  override readonly name = 'QueueClientError';
  constructor(
    readonly problem: P,
    options?: { cause?: unknown },
  ) {
    super(messageOf(problem), options);
  }
}

export function isQueueClientError(err: unknown): err is QueueClientError {
  return err instanceof QueueClientError;
}

/** True for a QueueClientError of one of `kinds`, narrowed to it. */
export function isQueueProblem<K extends QueueProblem['kind']>(
  err: unknown,
  ...kinds: K[]
): err is QueueClientError<Extract<QueueProblem, { kind: K }>> {
  return isQueueClientError(err) && (kinds as string[]).includes(err.problem.kind);
}
