/**
 * Idempotency-Key over the real HTTP stack and the real key store (PostgreSQL), with the in-memory
 * merge queue behind it: a keyed retry gets the first answer (status and body) and reaches the queue
 * no more; the same key with another request is a 422; a key still being applied is a 409; a failed
 * attempt (5xx) leaves the key to the retry, which carries the first attempt's update id; bad keys are
 * a 400 naming the header; the OpenAPI document lists the header on every change and on no read.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { unavailable } from '../../../api/errors';
import type { MergeQueueService } from '../../../api/routes/merge-queue/service';
import { CHANGE_ENDPOINTS } from '../../../api/routes/merge-queue/update-id';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { createFakeMergeQueue } from './merge-queue-fake';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const Q = { repo: REPO, targetBranch: 'main' };
const WHERE = 'github.com/acme/app branch "main"';
const REUSED =
  'Header Idempotency-Key was already used for a different request; send a new key for a new request.';

let pool: Pool;
let app: FastifyInstance;
let key: string;
const fake = createFakeMergeQueue();
/** Test hooks in front of the fake's submit: a gate to hold it, failures to throw first. */
let gate: Promise<void> | null = null;
let failNext = 0;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_idempotency'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  const submitPullRequest: MergeQueueService['submitPullRequest'] = async (change, request) => {
    if (gate) await gate;
    if (failNext > 0) {
      failNext--;
      fake.calls.push({
        method: 'submitPullRequest',
        org: change.org.slug,
        updateId: change.updateId,
        request,
      });
      throw unavailable('The merge queue did not answer in time; retry.');
    }
    return fake.service.submitPullRequest(change, request);
  };
  ({ app } = await buildTestApp(pool, { mergeQueue: { ...fake.service, submitPullRequest } }));
  expect((await post('createQueue', Q)).statusCode).toBe(200);
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

function post(path: string, body: object, idempotencyKey?: string) {
  return app.inject({
    method: 'POST',
    url: `/v1/${path}`,
    headers: {
      'content-type': 'application/json',
      'x-api-token': key,
      ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
    },
    payload: JSON.stringify(body),
  });
}

const callsOf = (method: string) => fake.calls.filter((c) => c.method === method);

test('a retry with the same key and request gets the first answer and is not applied again', async () => {
  const k = randomUUID();
  const before = callsOf('submitPullRequest').length;
  const first = await post('submitPullRequest', { ...Q, pr: { number: 1 }, priority: 'low' }, k);
  expect([first.statusCode, first.body, first.headers['idempotent-replayed']]).toEqual([
    200,
    '{}',
    undefined,
  ]);
  // The same request as parsed: a string PR number, another case, another key order, an ignored field.
  const retry = await post('submitPullRequest', { priority: 'LOW', pr: { number: '1' }, ...Q, extra: 1 }, k);
  expect([retry.statusCode, retry.body, retry.headers['idempotent-replayed']]).toEqual([200, '{}', 'true']);
  expect(retry.headers['content-type']).toBe(first.headers['content-type']);
  expect(callsOf('submitPullRequest').length - before).toBe(1);
});

test('the same key with another request, or on another endpoint → 422, nothing applied', async () => {
  const k = randomUUID();
  await post('submitPullRequest', { ...Q, pr: { number: 2 } }, k);
  const before = fake.calls.length;
  for (const [path, body] of [
    ['submitPullRequest', { ...Q, pr: { number: 3 } }],
    ['submitPullRequest', { ...Q, pr: { number: 2 }, priority: 'high' }],
    ['cancelPullRequest', { ...Q, pr: { number: 2 } }],
  ] as const) {
    const res = await post(path, body, k);
    expect([res.statusCode, res.body]).toEqual([422, REUSED]);
  }
  expect(fake.calls.length).toBe(before);
});

test('an error answer is replayed too, whatever the queue holds by then', async () => {
  const k = randomUUID();
  const cancel = { ...Q, pr: { number: 4 } };
  const first = await post('cancelPullRequest', cancel, k);
  const sentence = `Pull request #4 is not in the merge queue for ${WHERE}.`;
  expect([first.statusCode, first.body]).toEqual([404, sentence]);
  expect((await post('submitPullRequest', cancel)).statusCode).toBe(200);
  const retry = await post('cancelPullRequest', cancel, k);
  expect([retry.statusCode, retry.body, retry.headers['idempotent-replayed']]).toEqual([
    404,
    sentence,
    'true',
  ]);
  // The retry cancelled nothing: PR 4 is still queued.
  const pr = await post('getSubmittedPullRequest', cancel);
  expect(pr.json()).toMatchObject({ state: 'pending' });
});

test('updateQueue and createQueue replay their first answers', async () => {
  const k = randomUUID();
  const first = await post('updateQueue', { ...Q, concurrency: 3 }, k);
  expect(first.json()).toMatchObject({ concurrency: 3 });
  expect((await post('updateQueue', { ...Q, concurrency: 5 })).json()).toMatchObject({ concurrency: 5 });
  const retry = await post('updateQueue', { ...Q, concurrency: 3 }, k);
  expect([retry.statusCode, retry.body]).toEqual([200, first.body]);

  const other = { ...Q, targetBranch: 'release' };
  const c = randomUUID();
  expect((await post('createQueue', other, c)).statusCode).toBe(200);
  expect((await post('createQueue', other, c)).statusCode).toBe(200);
  // Without the key the state answers: the queue exists.
  expect((await post('createQueue', other)).statusCode).toBe(409);
});

test('a request still being applied holds its key: a concurrent retry → 409 with Retry-After', async () => {
  const k = randomUUID();
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const body = { ...Q, pr: { number: 5 } };
  const before = callsOf('submitPullRequest').length;
  const first = post('submitPullRequest', body, k);
  // The first request holds the key once its row exists.
  for (let i = 0; i < 100; i++) {
    const { rows } = await pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [k]);
    if (rows.length > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const concurrent = await post('submitPullRequest', body, k);
  expect([concurrent.statusCode, concurrent.body, concurrent.headers['retry-after']]).toEqual([
    409,
    'A request with this Idempotency-Key is still being applied; retry it after that request has answered.',
    '1',
  ]);
  gate = null;
  open();
  expect((await first).statusCode).toBe(200);
  expect((await post('submitPullRequest', body, k)).headers['idempotent-replayed']).toBe('true');
  expect(callsOf('submitPullRequest').length - before).toBe(1);
});

test('a 5xx answer is not kept: the retry is applied, under the first attempt’s update id', async () => {
  const k = randomUUID();
  const body = { ...Q, pr: { number: 6 } };
  failNext = 1;
  const before = callsOf('submitPullRequest').length;
  expect((await post('submitPullRequest', body, k)).statusCode).toBe(503);
  const retry = await post('submitPullRequest', body, k);
  expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
  const ids = callsOf('submitPullRequest')
    .slice(before)
    .map((c) => c.updateId);
  expect(ids).toHaveLength(2);
  expect(ids[1]).toBe(ids[0]);
  // Without a key every request has an id of its own.
  await post('submitPullRequest', body);
  expect(callsOf('submitPullRequest').at(-1)!.updateId).not.toBe(ids[0]);
});

test('a bad key → 400 naming the header', async () => {
  const sentence = "Header 'idempotency-key' must be 1 to 255 printable ASCII characters.";
  for (const bad of ['', 'k'.repeat(256)]) {
    const res = await post('submitPullRequest', { ...Q, pr: { number: 7 } }, bad);
    expect([res.statusCode, res.body]).toEqual([400, sentence]);
  }
  expect((await post('submitPullRequest', { ...Q, pr: { number: 7 } }, 'k'.repeat(255))).statusCode).toBe(
    200,
  );
});

test('the OpenAPI document lists the header on every change and on no read', async () => {
  const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
    paths: Record<string, { post?: { parameters?: { in: string; name: string }[] } }>;
  }>();
  const hasHeader = (path: string) =>
    (doc.paths[`/v1/${path}`]?.post?.parameters ?? []).some(
      (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
    );
  for (const endpoint of CHANGE_ENDPOINTS) expect([endpoint, hasHeader(endpoint)]).toEqual([endpoint, true]);
  for (const read of ['getQueue', 'getSubmittedPullRequest', 'listPullRequests'])
    expect([read, hasHeader(read)]).toEqual([read, false]);
});
