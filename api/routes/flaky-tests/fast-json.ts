/**
 * The serializers of the hot read routes. The zod response schemas still describe their bodies in
 * the OpenAPI document, and the tests check every response against those schemas; skipping the
 * per-response zod pass saved about 2 ms of API CPU per 100-test page in profiles (bench/README.md).
 *  - `plainJson`: JSON.stringify of bodies built by wire.ts from typed records (the html_url page);
 *  - `sendJsonText`: a body that is JSON text already (list pages and get-test-details, written by
 *    PostgreSQL — flaky/store/test-case-json.ts), sent as it is: no parse, no object per
 *    row, no serializer.
 */
import type { FastifyReply } from 'fastify';

export const plainJson = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

/** Sends `json` as the body, typed as JSON (a string with a content type goes out as it is). */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
