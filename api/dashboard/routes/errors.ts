/**
 * Errors of dashboard routes as a small HTML page with the same one sentence the API would answer
 * (AppErrors, limits, Fastify's own 4xx); everything else goes to the API's handler, which logs it
 * and answers the plain internal-error sentence with the request id, never the details.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors';
import { isLimitExceeded } from '../../plugins/limit-exceeded';

type Handler = FastifyInstance['errorHandler'];

function clientProblem(err: FastifyError): { status: number; message: string } | null {
  if (isAppError(err)) return err.statusCode < 500 ? { status: err.statusCode, message: err.message } : null;
  if (isLimitExceeded(err)) return { status: 429, message: err.message };
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, message: 'The form is too large.' };
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
    return { status: err.statusCode, message: 'The request could not be read.' };
  return null;
}

export function uiErrorHandler(parent: Handler) {
  return function handle(
    this: FastifyInstance,
    err: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const problem = clientProblem(err);
    if (problem === null) return parent.call(this, err, request, reply);
    if (isLimitExceeded(err)) reply.header('retry-after', String(err.retryAfterSeconds));
    return reply
      .code(problem.status)
      .type('text/html; charset=utf-8')
      .view('error', { title: `Error ${problem.status}`, status: problem.status, message: problem.message });
  };
}
