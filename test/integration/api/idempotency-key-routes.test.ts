/**
 * Idempotency-Key over the real HTTP stack and the real key store (PostgreSQL), with the real queue
 * behind it (test/support/api-stack.ts: the Temporal-backed service, the queue workflow, a paused
 * queue of its own per test, so submitted PRs stay queued). What reached the queue is read from its
 * workflow's history (the updates it accepted, with their update ids): a keyed retry gets the first
 * answer (status and body) and reaches the queue no more; the same key with another request is a 422;
 * a key still being applied is a 409; a failed attempt (5xx) leaves the key to the retry, which
 * carries the first attempt's update id; bad keys are a 400 naming the header; the OpenAPI document
 * lists the header on every change and on no read.
 */
import { randomUUID } from 'node:crypto';
import { unavailable } from '../../../api/errors';
import { CHANGE_ENDPOINTS } from '../../../api/routes/merge-queue/update-id';
import { useApiStack, type ApiQueue } from '../../support/api-stack';

const REUSED =
  'Header Idempotency-Key was already used for a different request; send a new key for a new request.';

/** Test hooks in front of the real submit: a gate to hold it, failures to throw before it is called. */
let gate: Promise<void> | null = null;
let failNext = 0;
/** The update ids of the submits a hook failed (they never reached the queue). */
const failedUpdateIds: string[] = [];

const api = useApiStack({
  prefix: 'api_idempotency',
  mergeQueue: (real) => ({
    ...real,
    async submitPullRequest(change, request) {
      if (gate) await gate;
      if (failNext > 0) {
        failNext--;
        failedUpdateIds.push(change.updateId);
        throw unavailable('The merge queue did not answer in time; retry.');
      }
      return real.submitPullRequest(change, request);
    },
  }),
});

interface TestQueue extends ApiQueue {
  post(path: string, body: object, idempotencyKey?: string): ReturnType<typeof post>;
  where: string;
  /** The updates its queue workflow accepted (all, or those of one name). */
  updates(name?: string): Promise<{ name: string; updateId: string }[]>;
}

/** A paused queue of the test's own, with PRs `prs` open on its repository. */
async function newQueue(...prs: number[]): Promise<TestQueue> {
  const q = await api.newQueue();
  for (const n of prs) q.h.openPr(n, { [`pr-${n}.txt`]: `${n}\n` });
  const t: TestQueue = {
    ...q,
    where: `${q.repoLabel} branch "main"`,
    post: (path, body, idempotencyKey) => post(path, body, q.token, idempotencyKey),
    async updates(name) {
      const all = await q.acceptedUpdates();
      return name === undefined ? all : all.filter((u) => u.name === name);
    },
  };
  expect((await t.post('createQueue', q.Q)).statusCode).toBe(200);
  expect((await t.post('updateQueue', { ...q.Q, state: 'paused' })).statusCode).toBe(200);
  return t;
}

function post(path: string, body: object, token: string, idempotencyKey?: string) {
  return api.stack().app.inject({
    method: 'POST',
    url: `/v1/${path}`,
    headers: {
      'content-type': 'application/json',
      'x-api-token': token,
      ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
    },
    payload: JSON.stringify(body),
  });
}

test('a retry with the same key and request gets the first answer and is not applied again', async () => {
  const q = await newQueue(1);
  const k = randomUUID();
  const first = await q.post('submitPullRequest', { ...q.Q, pr: { number: 1 }, priority: 'low' }, k);
  expect([first.statusCode, first.body, first.headers['idempotent-replayed']]).toEqual([
    200,
    '{}',
    undefined,
  ]);
  // The same request as parsed: a string PR number, another case, another key order, an ignored field.
  const retry = await q.post(
    'submitPullRequest',
    { priority: 'LOW', pr: { number: '1' }, ...q.Q, extra: 1 },
    k,
  );
  expect([retry.statusCode, retry.body, retry.headers['idempotent-replayed']]).toEqual([200, '{}', 'true']);
  expect(retry.headers['content-type']).toBe(first.headers['content-type']);
  expect(await q.updates('submitPullRequest')).toHaveLength(1);
});

test('the same key with another request, or on another endpoint → 422, nothing applied', async () => {
  const q = await newQueue(2);
  const k = randomUUID();
  await q.post('submitPullRequest', { ...q.Q, pr: { number: 2 } }, k);
  const before = (await q.updates()).length;
  for (const [path, body] of [
    ['submitPullRequest', { ...q.Q, pr: { number: 3 } }],
    ['submitPullRequest', { ...q.Q, pr: { number: 2 }, priority: 'high' }],
    ['cancelPullRequest', { ...q.Q, pr: { number: 2 } }],
  ] as const) {
    const res = await q.post(path, body, k);
    expect([res.statusCode, res.body]).toEqual([422, REUSED]);
  }
  expect(await q.updates()).toHaveLength(before);
});

test('an error answer is replayed too, whatever the queue holds by then', async () => {
  const q = await newQueue(4);
  const k = randomUUID();
  const cancel = { ...q.Q, pr: { number: 4 } };
  const first = await q.post('cancelPullRequest', cancel, k);
  const sentence = `Pull request #4 is not in the merge queue for ${q.where}.`;
  expect([first.statusCode, first.body]).toEqual([404, sentence]);
  expect((await q.post('submitPullRequest', cancel)).statusCode).toBe(200);
  const retry = await q.post('cancelPullRequest', cancel, k);
  expect([retry.statusCode, retry.body, retry.headers['idempotent-replayed']]).toEqual([
    404,
    sentence,
    'true',
  ]);
  // The retry cancelled nothing: PR 4 is still queued.
  const pr = await q.post('getSubmittedPullRequest', cancel);
  expect(pr.json()).toMatchObject({ state: 'pending' });
  expect((await q.updates()).map((u) => u.name)).not.toContain('cancelPullRequest');
});

test('updateQueue and createQueue replay their first answers', async () => {
  const q = await newQueue();
  const k = randomUUID();
  const first = await q.post('updateQueue', { ...q.Q, concurrency: 3 }, k);
  expect(first.json()).toMatchObject({ concurrency: 3 });
  expect((await q.post('updateQueue', { ...q.Q, concurrency: 5 })).json()).toMatchObject({ concurrency: 5 });
  const retry = await q.post('updateQueue', { ...q.Q, concurrency: 3 }, k);
  expect([retry.statusCode, retry.body]).toEqual([200, first.body]);
  // The queue kept the later change.
  expect((await q.post('getQueue', q.Q)).json()).toMatchObject({ concurrency: 5 });

  const other = q.branch('release');
  const c = randomUUID();
  expect((await q.post('createQueue', other, c)).statusCode).toBe(200);
  expect((await q.post('createQueue', other, c)).statusCode).toBe(200);
  // Without the key the state answers: the queue exists.
  expect((await q.post('createQueue', other)).statusCode).toBe(409);
});

test('a request still being applied holds its key: a concurrent retry → 409 with Retry-After', async () => {
  const q = await newQueue(5);
  const { pool } = api.stack().deployment;
  const k = randomUUID();
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const body = { ...q.Q, pr: { number: 5 } };
  const first = q.post('submitPullRequest', body, k);
  // The first request holds the key once its row exists.
  for (let i = 0; i < 100; i++) {
    const { rows } = await pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [k]);
    if (rows.length > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const concurrent = await q.post('submitPullRequest', body, k);
  expect([concurrent.statusCode, concurrent.body, concurrent.headers['retry-after']]).toEqual([
    409,
    'A request with this Idempotency-Key is still being applied; retry it after that request has answered.',
    '1',
  ]);
  gate = null;
  open();
  expect((await first).statusCode).toBe(200);
  expect((await q.post('submitPullRequest', body, k)).headers['idempotent-replayed']).toBe('true');
  expect(await q.updates('submitPullRequest')).toHaveLength(1);
});

test('a 5xx answer is not kept: the retry is applied, under the first attempt’s update id', async () => {
  const q = await newQueue(6);
  const k = randomUUID();
  const body = { ...q.Q, pr: { number: 6 } };
  failNext = 1;
  expect((await q.post('submitPullRequest', body, k)).statusCode).toBe(503);
  const retry = await q.post('submitPullRequest', body, k);
  expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
  const submits = () => q.updates('submitPullRequest').then((u) => u.map((s) => s.updateId));
  const ids = [failedUpdateIds.at(-1), ...(await submits())];
  expect(ids).toHaveLength(2);
  expect(ids[1]).toBe(ids[0]);
  expect(await q.post('getSubmittedPullRequest', body)).toMatchObject({ statusCode: 200 });
  // Without a key every request has an id of its own.
  await q.post('submitPullRequest', body);
  expect((await submits()).at(-1)).not.toBe(ids[0]);
});

test('a bad key → 400 naming the header', async () => {
  const q = await newQueue(7);
  const sentence = "Header 'idempotency-key' must be 1 to 255 printable ASCII characters.";
  for (const bad of ['', 'k'.repeat(256)]) {
    const res = await q.post('submitPullRequest', { ...q.Q, pr: { number: 7 } }, bad);
    expect([res.statusCode, res.body]).toEqual([400, sentence]);
  }
  expect(await q.updates('submitPullRequest')).toHaveLength(0);
  expect((await q.post('submitPullRequest', { ...q.Q, pr: { number: 7 } }, 'k'.repeat(255))).statusCode).toBe(
    200,
  );
});

test('the OpenAPI document lists the header on every change and on no read', async () => {
  const doc = (await api.stack().app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
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
