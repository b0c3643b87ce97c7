/**
 * "Try it out" on /v1/docs works: every operation of the served OpenAPI document is sent through the
 * real app (buildApp, real PostgreSQL stores, a real key of the `dev` organisation `npm start`
 * creates) with the request the docs page would build from the document: the body's example (or,
 * without one, a sample composed from its fields as Swagger UI composes it) and every parameter's
 * example. The multipart upload form is sent too, with the example JUnit report as its file.
 *
 * What is accepted, per operation (ANSWERS): success; or a 404 naming what this fresh database lacks
 * (a queue: the merge-queue service here is a fake without queues, so a 404 from it proves the body
 * passed validation and reached the service; a webhook subscription or a run id, which are random on
 * every instance). Never a 400: the example itself would be wrong. An operation added to the API
 * without an entry here fails the test, so it gets an example and a stated answer.
 *
 * Parameters without an example are optional and not sent, as the docs page leaves them empty; only
 * NO_EXAMPLE's, each for its reason.
 *
 * The upload goes first: the examples' test id (calc/adds, computed as Trunk's clients compute it)
 * then names a stored test, so the flaky-test reads and the quarantine override answer 200.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { EXAMPLE_JUNIT_XML, EXAMPLE_ORG_SLUG, EXAMPLE_TEST_ID } from '../../../api/schemas/examples';
import type { MergeQueueService } from '../../../api/routes/merge-queue/service';
import { buildTestApp, type CapturedLog, noQueues } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

interface Schema {
  type?: string | string[];
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: Schema;
}
interface Media {
  schema: Schema;
  example?: unknown;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const QUEUE_404 = 'no queue in this database (the fake service has none); the body reached the service';
const UPLOAD = 'POST /v1/flaky-tests/upload';

/** The answer each operation's example gets here, and why. */
const ANSWERS: Record<string, { status: number; why: string } | { skip: string }> = {
  'GET /healthz': { status: 200, why: 'public, no input' },
  'GET /readyz': { status: 200, why: 'the probes answer (no worker probe in this app)' },
  'POST /v1/createQueue': { status: 200, why: 'the fake service creates any queue' },
  'POST /v1/getQueue': { status: 404, why: QUEUE_404 },
  'POST /v1/updateQueue': { status: 404, why: QUEUE_404 },
  'POST /v1/deleteQueue': { status: 404, why: QUEUE_404 },
  'POST /v1/submitPullRequest': { status: 404, why: QUEUE_404 },
  'POST /v1/cancelPullRequest': { status: 404, why: QUEUE_404 },
  'POST /v1/restartTestsOnPullRequest': { status: 404, why: QUEUE_404 },
  'POST /v1/setImpactedTargets': { status: 404, why: QUEUE_404 },
  'POST /v1/getSubmittedPullRequest': { status: 404, why: QUEUE_404 },
  'POST /v1/listPullRequests': { status: 404, why: QUEUE_404 },
  'POST /v1/getMergeQueueTestingDetails': { status: 404, why: QUEUE_404 },
  'POST /v1/reportTestStatus': { status: 404, why: QUEUE_404 },
  'POST /v1/getSubmittedPullRequests': { status: 404, why: QUEUE_404 },
  'GET /v1/testRuns/{testRunId}/log': { status: 404, why: 'run ids differ on every instance' },
  'POST /v1/queues/preflight': { status: 404, why: QUEUE_404 },
  'POST /v1/queues/preflight/result': { status: 404, why: QUEUE_404 },
  'POST /v1/repositories/claim': { status: 200, why: 'the upload already claimed it for this organisation' },
  'GET /v1/repositories': { status: 200, why: 'no input' },
  'POST /v1/flaky-tests/list-failing-tests': { status: 200, why: 'the uploaded failure is in the window' },
  'POST /v1/flaky-tests/get-test-details': { status: 200, why: 'the uploaded test' },
  'GET /v1/flaky-tests/tests/{test_id}': { status: 200, why: 'the uploaded test' },
  'POST /v1/flaky-tests/list-unhealthy-tests': { status: 200, why: 'the repository exists' },
  'POST /v1/flaky-tests/list-quarantined-tests': { status: 200, why: 'the repository exists' },
  'POST /v1/flaky-tests/link-ticket-to-test-case': { status: 200, why: 'links the uploaded test' },
  'GET /v1/flaky-tests/tickets/{ticket}': { status: 200, why: 'the ticket just linked' },
  'POST /v1/flaky-tests/get-repository-settings': { status: 200, why: 'the repository exists' },
  'GET /v1/flaky-tests/repository': { status: 200, why: 'the repository exists' },
  'POST /v1/flaky-tests/update-repository-settings': { status: 200, why: 'the repository exists' },
  'POST /v1/flaky-tests/set-quarantine-override': { status: 200, why: 'overrides the uploaded test' },
  'POST /v1/flaky-tests/check-quarantine': { status: 200, why: 'the uploaded test, by name' },
  'POST /v1/metrics/getQuarantineConfig': { status: 200, why: 'the uploaded test, by name' },
  'POST /v1/flakytests-cli/upload-metrics': { status: 204, why: 'telemetry is dropped' },
  'POST /v1/flakytests-uploader/upload-metrics': { status: 204, why: 'telemetry is dropped' },
  [UPLOAD]: { status: 200, why: 'the demo-shaped JUnit report is stored' },
  'POST /v1/metrics/createBundleUpload': { status: 200, why: 'a URL for the claimed repository' },
  'PUT /v1/metrics/bundles/{uploadId}': {
    skip: "a capability URL: its id, expiry and signature come from createBundleUpload's answer",
  },
  'GET /v1/getMergeQueueMetrics': { status: 200, why: 'the createQueue example registered the queue' },
  'POST /v1/listMergeQueueTestingResults': { status: 200, why: 'the registered queue, nothing tested yet' },
  'GET /v1/webhooks/event-types': { status: 200, why: 'no input' },
  'POST /v1/webhooks/subscriptions': { status: 201, why: 'creates the example subscription' },
  'GET /v1/webhooks/subscriptions': { status: 200, why: 'no input' },
  'GET /v1/webhooks/subscriptions/{id}': { status: 404, why: 'subscription ids are random' },
  'PATCH /v1/webhooks/subscriptions/{id}': { status: 404, why: 'subscription ids are random' },
  'DELETE /v1/webhooks/subscriptions/{id}': { status: 404, why: 'subscription ids are random' },
  'GET /v1/webhooks/subscriptions/{id}/deliveries': { status: 404, why: 'subscription ids are random' },
  'GET /v1/webhooks/deliveries/{id}': { status: 404, why: 'delivery ids are random' },
};

/** The optional parameters that carry no example on purpose. */
const NO_EXAMPLE: Record<string, string> = {
  'idempotency-key':
    'a fixed key would replay its first answer, or refuse the same key with another body (422)',
  cursor: "a page's cursor comes from the previous page's answer",
};

/** What Swagger UI fills a body with when it has no example: each field's example, default or a placeholder. */
function sampleOf(schema: Schema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const first = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (first) return sampleOf(first);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sampleOf(s)]));
    case 'array':
      return schema.items ? [sampleOf(schema.items)] : [];
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return true;
    default:
      return schema.format === 'uuid' ? '3fa85f64-5717-4562-b3fc-2c963f66afa6' : 'string';
  }
}

const exampleOf = (p: Parameter) => p.example ?? p.schema?.example ?? p.schema?.default;

let pool: Pool;
let app: FastifyInstance;
let key: string;
let doc: Doc;
let log: CapturedLog;
/** The merge-queue service methods the requests reached (validation passed before each). */
const reached: string[] = [];

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_examples'));
  ({ key } = await createApiKeyStore(pool).create(EXAMPLE_ORG_SLUG, 'openapi examples'));
  const spied = Object.fromEntries(
    Object.entries(noQueues).map(([name, method]: [string, (...args: unknown[]) => unknown]) => [
      name,
      (...args: unknown[]) => {
        reached.push(name);
        return method(...args);
      },
    ]),
  ) as unknown as MergeQueueService;
  ({ app, log } = await buildTestApp(pool, {
    mergeQueue: spied,
    // Never reached: the fake service has no queue, so the preflight routes answer its 404 first.
    preflights: {
      start: () => Promise.reject(new Error('no preflight without a queue')),
      read: () => Promise.resolve(null),
      forwardStatus: () => Promise.resolve(),
    },
  }));
  doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Doc>();
});
afterAll(async () => {
  await app.close();
  await pool.end();
});

function request(path: string, method: string, op: Operation) {
  let url = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { 'x-api-token': key };
  for (const p of op.parameters ?? []) {
    const example = exampleOf(p);
    if (example === undefined) continue;
    // Parameters are scalars: a docs page sends their text.
    const value = typeof example === 'string' ? example : JSON.stringify(example);
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'query') query.set(p.name, value);
    else headers[p.name] = value;
  }
  const json = op.requestBody?.content['application/json'];
  const payload = json ? (json.example ?? sampleOf(json.schema)) : undefined;
  const search = query.toString();
  return {
    method: method.toUpperCase() as 'GET',
    url: search ? `${url}?${search}` : url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  };
}

test('every operation of the document, sent as /v1/docs builds it, gets its stated answer', async () => {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      name: `${method.toUpperCase()} ${path}`,
      path,
      method,
      op,
    })),
  );
  expect(operations.map((o) => o.name).sort()).toEqual(Object.keys(ANSWERS).sort());
  // The upload first: the other flaky-test examples name the test it stores.
  operations.sort((a, b) => Number(b.name === UPLOAD) - Number(a.name === UPLOAD));

  const answers: string[] = [];
  const expected: string[] = [];
  const bodies = new Map<string, unknown>();
  for (const { name, path, method, op } of operations) {
    const answer = ANSWERS[name]!;
    if ('skip' in answer) continue;
    const withoutExample = (op.parameters ?? []).filter((p) => exampleOf(p) === undefined);
    expect({ name, withoutExample: withoutExample.map((p) => p.name) }).toEqual({
      name,
      withoutExample: withoutExample.filter((p) => !p.required && p.name in NO_EXAMPLE).map((p) => p.name),
    });
    const res = await app.inject(request(path, method, op));
    answers.push(`${name} ${res.statusCode}${res.statusCode >= 400 ? `: ${res.body}` : ''}`);
    if (String(res.headers['content-type']).startsWith('application/json')) bodies.set(name, res.json());
    expected.push(`${name} ${answer.status}`);
    if (res.statusCode === 404) expect(res.body).not.toMatch(/^Route /);
  }
  // No example is refused (a failure shows each refused one with its sentence), then every
  // operation's answer as one list.
  expect(answers.filter((a) => / 400:/.test(a))).toEqual([]);
  expect(answers.map((a) => a.replace(/:.*$/s, ''))).toEqual(expected);
  // Each merge-queue example passed validation: the service was called for every one of them.
  expect([...new Set(reached)].sort()).toEqual(
    [
      'cancelPullRequest',
      'createQueue',
      'getQueue',
      'getSubmittedPullRequest',
      'getTestRunsInProgress',
      'listPullRequests',
      'reportTestStatus',
      'restartTestsOnPullRequest',
      'setImpactedTargets',
      'submitPullRequest',
      'updateQueue',
      'deleteQueue',
    ].sort(),
  );
  // The examples name the same test: the one uploaded is the one read, overridden and looked up.
  expect(bodies.get(UPLOAD)).toMatchObject({ created: true, tests: 2, failures: 1 });
  expect(bodies.get('POST /v1/flaky-tests/get-test-details')).toMatchObject({
    test: { id: EXAMPLE_TEST_ID, name: 'adds' },
  });
  expect(bodies.get('POST /v1/flaky-tests/list-failing-tests')).toMatchObject({
    tests: [{ id: EXAMPLE_TEST_ID }],
  });
  expect(bodies.get('POST /v1/flaky-tests/check-quarantine')).toMatchObject({
    tests: [{ test_id: EXAMPLE_TEST_ID, known: true, quarantined: true }],
  });
  expect(bodies.get('POST /v1/metrics/getQuarantineConfig')).toMatchObject({ testIds: [EXAMPLE_TEST_ID] });
  expect(log.text()).not.toContain(key);
});

test("the upload's multipart form, filled from its example with the example report as the file", async () => {
  const media = doc.paths['/v1/flaky-tests/upload']!.post!.requestBody!.content['multipart/form-data']!;
  const fields = { ...(media.schema.example as Record<string, string | number>), upload_id: 'multipart-1' };
  const boundary = 'railyard-openapi-example';
  const part = (headers: string, body: string) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
  const payload =
    Object.entries(fields)
      .map(([name, value]) => part(`Content-Disposition: form-data; name="${name}"`, String(value)))
      .join('') +
    part(
      'Content-Disposition: form-data; name="files"; filename="junit.xml"\r\nContent-Type: application/xml',
      EXAMPLE_JUNIT_XML,
    ) +
    `--${boundary}--\r\n`;
  const res = await app.inject({
    method: 'POST',
    url: '/v1/flaky-tests/upload',
    headers: { 'x-api-token': key, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ upload_id: 'multipart-1', created: true, tests: 2, failures: 1 });
  // Every field of the form has an example: a docs page fills the form field by field.
  const properties = Object.entries(media.schema.properties ?? {}).filter(([name]) => name !== 'files');
  expect(properties.filter(([, s]) => sampleOf(s) === 'string').map(([name]) => name)).toEqual([]);
});
