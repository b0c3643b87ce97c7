/**
 * Errors the API answers with on purpose. Each carries its HTTP status and one plain sentence for the
 * caller; the error handler (plugins/error-handler.ts) is the only place that turns errors into replies.
 * The queue client's errors (queue-client/errors.ts) become AppErrors here (`queueAppError`).
 */
import type { QueueRejection } from '../contract';
import type { QueueClientError } from '../queue-client';

export type AppErrorKind =
  'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'unprocessable' | 'unavailable';

const STATUS: Record<AppErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  unavailable: 503,
};

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly statusCode: number;
  constructor(
    readonly kind: AppErrorKind,
    message: string,
  ) {
    super(message);
    this.statusCode = STATUS[kind];
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const unprocessable = (message: string) => new AppError('unprocessable', message);
export const unavailable = (message: string) => new AppError('unavailable', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const unauthorized = (message: string) => new AppError('unauthorized', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof Error && err.name === 'AppError' && 'kind' in err;
}

/** The status of each of the queue's refusals: a PR or queue it does not know, a change it cannot apply. */
const REJECTION_KIND: Record<QueueRejection, AppErrorKind> = {
  not_found: 'not_found',
  deleted: 'not_found',
  not_empty: 'bad_request',
  invalid: 'bad_request',
  unavailable: 'unavailable',
  // Only when the queue client's retries ran out of the busy budget (queue-client/client.ts).
  continuing: 'unavailable',
};

/**
 * The AppError of a queue-client error: the queue's refusal with its own sentence, a queue that did not
 * answer in time as a 503 saying what to do. A missing or existing queue is worded by the caller
 * (`queue`), which knows how the request named it.
 */
export function queueAppError(
  err: QueueClientError,
  queue: { missing: () => AppError; exists: () => AppError },
): AppError {
  const p = err.problem;
  switch (p.kind) {
    case 'unavailable':
      return unavailable(
        `The merge queue did not answer ${p.what} within ${p.timeoutMs} ms; Temporal or the railyard worker is unavailable, retry later.`,
      );
    case 'busy':
      return unavailable(
        `The merge queue was too busy to answer ${p.what} within ${p.budgetMs} ms; retry later.`,
      );
    case 'admission_timeout':
      return unavailable(
        `The merge queue did not finish admitting the pull request within ${p.budgetMs} ms; submit it again (a retried submit is applied once).`,
      );
    case 'rejected':
      return new AppError(REJECTION_KIND[p.rejection], p.message);
    case 'queue_not_found':
      return queue.missing();
    case 'queue_exists':
      return queue.exists();
  }
}
