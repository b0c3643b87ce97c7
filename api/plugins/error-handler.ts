/**
 * The one place errors become replies. Every error body is a single plain-text sentence; client errors
 * name the field and the problem, server errors say only that something failed and give the request id
 * (details go to the log, never to the caller). A tenant over a limit gets 429 and a database that
 * is busy (statement timeout, no free connection) 503, both with Retry-After.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { isAppError } from '../errors';
import { describeIssues } from '../validation-message';
import { databaseBusy, databaseBusyMessage } from './database-busy';
import { isLimitExceeded } from './limit-exceeded';

const TEXT = 'text/plain; charset=utf-8';

function sendText(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(TEXT).send(message);
}

/** A route's body limit as the 413 says it: whole MiB (the API's 20 MiB), else bytes (1901024-byte). */
function sizeLimit(bytes: number): string {
  const MIB = 1024 * 1024;
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes}-byte`;
}

/** Fastify's own client errors, reworded as one sentence each. */
function frameworkMessage(err: FastifyError, request: FastifyRequest): string | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `The request body is larger than the ${sizeLimit(request.routeOptions.bodyLimit)} limit.`;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Content type '${request.headers['content-type'] ?? ''}' is not supported; send application/json.`;
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The request body is not valid JSON.';
    default:
      return undefined;
  }
}

/** The type provider flattens a zod issue into {keyword, instancePath, message, params}; rebuild it. */
function issueOf(v: {
  keyword: string;
  instancePath: string;
  message?: string;
  params: object;
}): z.core.$ZodIssue {
  const path = v.instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return { ...v.params, code: v.keyword, path, message: v.message ?? '' } as z.core.$ZodIssue;
}

function handle(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (hasZodFastifySchemaValidationErrors(err)) {
    // Every problem at once, one sentence each, so a client fixes them in one try.
    const context = err.validationContext ?? 'body';
    return sendText(reply, 400, describeIssues(err.validation.map(issueOf), context));
  }
  if (isAppError(err)) {
    if (err.statusCode >= 500) request.log.warn({ err }, 'request failed: %s', err.message);
    return sendText(reply, err.statusCode, err.message);
  }
  if (isLimitExceeded(err)) {
    return sendText(reply.header('retry-after', String(err.retryAfterSeconds)), 429, err.message);
  }
  const busy = databaseBusy(err);
  if (busy !== null) {
    request.log.warn({ err, busy }, 'database busy');
    return sendText(reply.header('retry-after', '1'), 503, databaseBusyMessage(busy));
  }
  if (err instanceof SyntaxError && err.statusCode === 400) {
    return sendText(reply, 400, 'The request body is not valid JSON.');
  }
  const known = frameworkMessage(err, request);
  if (known !== undefined && err.statusCode !== undefined && err.statusCode < 500) {
    return sendText(reply, err.statusCode, known);
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return sendText(reply, err.statusCode, err.message.endsWith('.') ? err.message : `${err.message}.`);
  }
  request.log.error({ err }, 'unhandled error');
  return internalError(request, reply);
}

/**
 * Errors Fastify's router raises before any route or hook runs (a path that is not valid URL encoding,
 * a path parameter over the length limit); passed as `frameworkErrors` so they are plain text too.
 */
export function frameworkErrorHandler(
  err: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is longer than the 100 characters allowed.'
      : 'The request path is not a valid URL.';
  void sendText(reply, err.statusCode ?? 400, message);
}

const internalError = (request: FastifyRequest, reply: FastifyReply) =>
  sendText(reply, 500, `Internal error; quote request id ${request.id} when reporting it.`);

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    try {
      return handle(err, request, reply);
    } catch (handlerErr) {
      // Never let Fastify's default handler answer: it would echo internal messages as JSON.
      request.log.error({ err: handlerErr, cause: err }, 'error handler failed');
      return internalError(request, reply);
    }
  });

  app.setNotFoundHandler((request, reply) =>
    sendText(
      reply,
      404,
      `There is no route ${request.method} ${request.url.split('?')[0]}; see /v1/openapi.json.`,
    ),
  );
}
