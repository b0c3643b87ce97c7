/** The served OpenAPI document is valid OpenAPI 3.1; health and readiness answer without auth. */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { BRANCH_PATTERN, REPO_HOST_PATTERN, REPO_NAME_PATTERN, REPO_OWNER_PATTERN } from '../../../git/names';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let app: FastifyInstance;
let temporalUp = true;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_docs'));
  ({ app } = await buildTestApp(pool, {
    probes: {
      postgres: async () => void (await pool.query('SELECT 1')),
      temporal: () =>
        temporalUp ? Promise.resolve() : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
    },
  }));
});
afterAll(async () => {
  await app.close();
  await pool.end();
});

test('/v1/openapi.json is a valid OpenAPI 3.1 document with the key scheme and the routes', async () => {
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json<{
    openapi: string;
    paths: Record<string, unknown>;
    components: { securitySchemes: object };
  }>();
  // An ES module; jest compiles it to CommonJS (see jest.config.js).
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  expect(doc.components.securitySchemes).toEqual({
    ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-token' },
  });
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/getQueue', '/healthz', '/readyz']));
});

test('the document carries the name rules as patterns and the 204 of a deletion', async () => {
  type Schema = {
    properties: Record<string, { pattern?: string; properties?: Record<string, { pattern?: string }> }>;
  };
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; responses: object }>
    >;
  }>();
  const body = (route: string) => doc.paths[route]!.post!.requestBody!.content['application/json']!.schema;
  for (const route of ['/v1/getQueue', '/v1/submitPullRequest', '/v1/flaky-tests/get-test-details']) {
    const repo = body(route).properties.repo!.properties!;
    expect([repo.host!.pattern, repo.owner!.pattern, repo.name!.pattern]).toEqual([
      REPO_HOST_PATTERN,
      REPO_OWNER_PATTERN,
      REPO_NAME_PATTERN,
    ]);
  }
  expect(body('/v1/getQueue').properties.targetBranch!.pattern).toBe(BRANCH_PATTERN);
  // Fuzzing found the 204 undocumented (the document listed a 200 the route never sends).
  expect(Object.keys(doc.paths['/v1/webhooks/subscriptions/{id}']!.delete!.responses)).toEqual([
    '204',
    '4XX',
    '5XX',
  ]);
});

test('the docs page is served without a key', async () => {
  const res = await app.inject({ method: 'GET', url: '/v1/docs/' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('text/html');
});

test('/healthz and /readyz', async () => {
  expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(200);
  expect(ready.json()).toEqual({ ready: true, checks: { postgres: 'ok', temporal: 'ok' } });
  temporalUp = false;
  const notReady = await app.inject({ method: 'GET', url: '/readyz' });
  expect(notReady.statusCode).toBe(503);
  expect(notReady.json()).toEqual({
    ready: false,
    checks: { postgres: 'ok', temporal: 'connect ECONNREFUSED 127.0.0.1:1' },
  });
  temporalUp = true;
});

test('every plugin the app registers goes by its name, never by a preview of its source', () => {
  // Fastify names an unnamed plugin by searching the module cache for it (a walk per registration),
  // then by the first characters of its source; api/plugins/named-plugin.ts names ours.
  const tree = app.printPlugins();
  expect(tree).toContain('mergeQueueRoutes');
  expect(tree).toContain('queueRoutes');
  expect(tree).toContain('healthRoutes');
  expect(tree.split('\n').filter((line) => line.includes('=>') || line.includes('function'))).toEqual([]);
});
