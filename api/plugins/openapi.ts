/**
 * The OpenAPI 3.1 document is generated from the same zod schemas that validate requests, so the
 * contract cannot drift from the code. Served at /v1/openapi.json with a docs page at /v1/docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'railyard',
        version: '1.0.0',
        description:
          "Self-hosted merge queue and flaky-test service. Compatible with Trunk.io's public v1 API; errors are plain-text sentences.",
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-token' } },
      },
      security: [{ ApiKeyAuth: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, () => app.swagger());
}
