/**
 * The OpenAPI 3.1 document is generated from the same zod schemas that validate requests, so the
 * contract cannot drift from the code. Served at /v1/openapi.json with a docs page at /v1/docs.
 *
 * Every operation also documents the errors the error handler answers with (plugins/error-handler.ts):
 * `4XX` and `5XX`, each one plain-text sentence, unless the route declares that status itself. Without
 * them a client (or a fuzzer) reading the document could not tell a 404 from a broken contract.
 *
 * A route that reads its body itself (a multipart stream) names its forms in `documentedBody`, one zod
 * schema per media type: they are converted as a `body` would be, but fastify never validates with
 * them. Request examples are the schemas' own (`withExample`, api/schemas/examples.ts).
 */
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';

declare module 'fastify' {
  interface FastifySchema {
    /** The request body's forms for the document only (see the top comment); not validated. */
    documentedBody?: Readonly<Record<string, ZodType>>;
  }
}

interface Operation {
  responses?: Record<string, unknown>;
}

const plainText = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

export const ERROR_RESPONSES = {
  '4XX': plainText('The request cannot be served as sent: one sentence naming the field or the problem.'),
  '5XX': plainText('railyard or what it depends on failed or is unavailable: one sentence, retry later.'),
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** jsonSchemaTransform, plus a route's `documentedBody` as the operation's request body. */
const transform: SwaggerTransform = (input) => {
  const { documentedBody, ...schema } = input.schema;
  const out = jsonSchemaTransform({ ...input, schema });
  if (documentedBody === undefined || (out.schema as { hide?: boolean }).hide) return out;
  const content: Record<string, { schema: unknown }> = {};
  for (const [mediaType, body] of Object.entries(documentedBody))
    content[mediaType] = { schema: jsonSchemaTransform({ ...input, schema: { body } }).schema.body };
  return { ...out, schema: { ...out.schema, body: { content } } satisfies FastifySchema };
};

function withErrorResponses<T extends { paths?: unknown }>(doc: T): T {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const declared = Object.keys(op.responses ?? {});
      op.responses = { ...op.responses };
      for (const [range, response] of Object.entries(ERROR_RESPONSES))
        if (!declared.some((code) => code[0] === range[0])) op.responses[range] = response;
    }
  }
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'railyard',
        version: '1.0.0',
        description:
          "Self-hosted merge queue and flaky-test service. Compatible with Trunk.io's public v1 API; errors are plain-text sentences. " +
          'The examples name the organisation of `npm start`\'s key (`dev`) and local/demo/app, the repository the first `npm run demo` builds: after the demo, "Try it out" reads its queue, its PRs (#3 breaks the tests) and its tests.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-token' } },
      },
      security: [{ ApiKeyAuth: [] }],
    },
    transform,
    transformObject: (documents) =>
      'openapiObject' in documents ? withErrorResponses(documents.openapiObject) : documents.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, () => app.swagger());
}
