/**
 * A request with several problems hears of all of them in one 400 (api/validation-message.ts): one
 * plain sentence per problem, joined, never the values sent. Through the real app and PostgreSQL.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { MAX_PROBLEMS_LISTED } from '../../../api/validation-message';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_all_problems'));
  key = (await createApiKeyStore(pool).create('acme')).key;
  ({ app } = await buildTestApp(pool));
});
afterAll(async () => {
  await app.close();
  await pool.end();
});

const post = (url: string, payload: object) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': key }, payload });

test('every problem of the body in one answer, one sentence each', async () => {
  const res = await post('submitPullRequest', {
    repo: { host: 'github.com', owner: 'acme' },
    targetBranch: 7,
    pr: { number: 'seven' },
    priority: 'sometime-secret-value',
  });
  expect(res.statusCode).toBe(400);
  const sentences = res.body.split(/(?<=\.) (?=[A-Z])/);
  expect(sentences).toEqual(
    expect.arrayContaining([
      "Field 'repo.name' is required.",
      "Field 'targetBranch' must be a string.",
      "Field 'pr.number' must be a number or a numeric string.",
    ]),
  );
  expect(sentences.some((s) => s.startsWith("Field 'priority' must be"))).toBe(true);
  expect(res.body).not.toContain('sometime-secret-value');
});

test('a body with a single problem still answers that one sentence', async () => {
  const res = await post('getQueue', { repo: { host: 'github.com', owner: 'acme', name: 'app' } });
  expect([res.statusCode, res.body]).toEqual([400, "Field 'targetBranch' is required."]);
});

test('past MAX_PROBLEMS_LISTED problems, the rest are counted', async () => {
  const prs = Array.from({ length: MAX_PROBLEMS_LISTED + 3 }, () => ({ number: 'x' }));
  const res = await post('getSubmittedPullRequests', {
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    targetBranch: 'main',
    prs,
  });
  expect(res.statusCode).toBe(400);
  expect(res.body).toMatch(/ 3 more problems not listed\.$/);
});
