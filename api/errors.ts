/**
 * Errors the API answers with on purpose. Each carries its HTTP status and one plain sentence for the
 * caller; the error handler (plugins/error-handler.ts) is the only place that turns errors into replies.
 */
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
