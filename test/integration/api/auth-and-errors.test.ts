/**
 * The HTTP shell: authentication matrix, body limits, content types, field-naming 400s, 404s, request
 * ids, no internals in 5xx bodies, no secrets in logs. Real PostgreSQL for the keys.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, type CapturedLog } from '../../support/app';
import { claimRepository } from '../../support/ownership';
import { createMigratedDatabase } from '../../support/postgres';

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

let pool: Pool;
let app: FastifyInstance;
let log: CapturedLog;
let key: string;
let revokedKey: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_shell'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  const revoked = await keys.create('acme', 'old');
  revokedKey = revoked.key;
  await keys.revoke(revoked.summary.id);
  await claimRepository(pool, 'acme', QUEUE.repo);
  ({ app, log } = await buildTestApp(pool, {
    mergeQueue: {
      getQueue: (_org, k) => {
        if (k.targetBranch === 'explode') throw new Error('secret internal detail: password=hunter2');
        return Promise.resolve(null);
      },
    },
  }));
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

const post = (body: string | object, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/v1/getQueue',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('authentication', () => {
  test.each([
    ['no header', {}, 'Missing API key'],
    ['empty header', { 'x-api-token': '' }, 'Missing API key'],
    ['blank header', { 'x-api-token': '   ' }, 'Missing API key'],
    [
      'wrong key',
      { 'x-api-token': 'ry_not-a-real-key-at-all-0000000000000000000' },
      'not valid or has been revoked',
    ],
    ['short garbage', { 'x-api-token': 'x' }, 'not valid or has been revoked'],
  ])('%s → 401 plain text', async (_name, headers, message) => {
    const res = await post(QUEUE, headers);
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toContain(message);
  });

  test('revoked key → 401', async () => {
    const res = await post(QUEUE, { 'x-api-token': revokedKey });
    expect(res.statusCode).toBe(401);
  });

  test('valid key reaches the route (unknown queue → 404 naming it)', async () => {
    const res = await post(QUEUE, { 'x-api-token': key });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('No merge queue exists for branch "main" of github.com/acme/app.');
  });

  test('a valid key records its last use', async () => {
    await post(QUEUE, { 'x-api-token': key });
    await new Promise((r) => setTimeout(r, 100));
    const [summary] = (await createApiKeyStore(pool).list('acme')).filter(
      (k) => key.startsWith(k.prefix) && !k.revokedAt,
    );
    expect(summary?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('bad input', () => {
  const auth = () => ({ 'x-api-token': key });

  test.each([
    ['missing repo', { targetBranch: 'main' }, "Field 'repo' is required."],
    [
      'missing repo.host',
      { repo: { owner: 'a', name: 'b' }, targetBranch: 'main' },
      "Field 'repo.host' is required.",
    ],
    ['wrong type', { ...QUEUE, targetBranch: 5 }, "Field 'targetBranch' must be a string."],
    [
      'empty string',
      { ...QUEUE, targetBranch: '' },
      "Field 'targetBranch' must be at least 1 characters long.",
    ],
    ['array body', [], 'The request body must be a JSON object.'],
  ])('%s → 400 naming the field', async (_name, body, message) => {
    const res = await post(body, auth());
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe(message);
  });

  test('malformed JSON → 400', async () => {
    const res = await post('{"repo": ', auth());
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe('The request body is not valid JSON.');
  });

  test('curl -d default content type is read as JSON', async () => {
    const res = await post(JSON.stringify({}), {
      ...auth(),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.statusCode).toBe(400);
    // Every problem at once (api/validation-message.ts).
    expect(res.body).toBe("Field 'repo' is required. Field 'targetBranch' is required.");
  });

  test('unsupported content type → 415', async () => {
    const res = await post('<queue/>', { ...auth(), 'content-type': 'text/xml' });
    expect(res.statusCode).toBe(415);
    expect(res.body).toBe("Content type 'text/xml' is not supported; send application/json.");
  });

  test('21 MiB body → 413', async () => {
    const big = JSON.stringify({ ...QUEUE, pad: 'x'.repeat(21 * 1024 * 1024) });
    const res = await post(big, auth());
    expect(res.statusCode).toBe(413);
    expect(res.body).toBe('The request body is larger than the 20 MiB limit.');
  });

  test('unknown route → 404 plain text', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/noSuchThing', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('There is no route POST /v1/noSuchThing; see /v1/openapi.json.');
  });

  test('5xx bodies never leak internals', async () => {
    const res = await post({ ...QUEUE, targetBranch: 'explode' }, auth());
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toMatch(/secret|hunter2|Error/);
    expect(res.body).toContain(res.headers['x-request-id'] as string);
  });
});

describe('request ids and logs', () => {
  test('every response has an x-request-id; a sane incoming one is kept', async () => {
    const fresh = await app.inject({ method: 'GET', url: '/healthz' });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const given = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'ci-run-42' },
    });
    expect(given.headers['x-request-id']).toBe('ci-run-42');
    const evil = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a b\nc' } });
    expect(evil.headers['x-request-id']).not.toBe('a b\nc');
  });

  test('one log line per request, and no key in the log', async () => {
    const before = log.lines.length;
    await post(QUEUE, { 'x-api-token': key });
    const lines = log.lines
      .slice(before)
      .map((l) => JSON.parse(l) as { msg: string; status?: number; org?: string });
    expect(lines.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ status: 404, org: 'acme' }),
    ]);
    expect(log.text()).not.toContain(key);
    expect(log.text()).not.toContain(revokedKey);
  });
});
