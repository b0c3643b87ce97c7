/**
 * createQueue for a repository that does not exist on the local git host answers 404 with a sentence
 * naming the command that creates it, and leaves no claim behind; an existing one is created (and
 * claimed on first use). Real HTTP stack, real PostgreSQL, real bare repositories on disk; the queue
 * service is the in-memory fake (the check happens before it is called).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { initBareRepository } from '../../../git/repository-path';
import { createApiKeyStore } from '../../../stores/api-keys';
import { localRepositoryCheck } from '../../../api/routes/merge-queue/repository-on-host';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { createFakeMergeQueue } from './merge-queue-fake';

let pool: Pool;
let app: FastifyInstance;
let key: string;
let otherKey: string;
let gitRoot: string;
const fake = createFakeMergeQueue();

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_create_queue_repo'));
  const keys = createApiKeyStore(pool);
  key = (await keys.create('acme')).key;
  otherKey = (await keys.create('globex')).key;
  gitRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'create-queue-'));
  await initBareRepository(gitRoot, { host: 'local', owner: 'acme', name: 'app' });
  ({ app } = await buildTestApp(pool, {
    mergeQueue: fake.service,
    repositoryOnHost: localRepositoryCheck({ gitRoot, gitHubHost: 'github.com' }),
  }));
});

afterAll(async () => {
  await app.close();
  await pool.end();
  fs.rmSync(gitRoot, { recursive: true, force: true });
});

const post = (url: string, body: object, token = key) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': token }, payload: body });
const claimed = async () => {
  const res = await app.inject({ method: 'GET', url: '/v1/repositories', headers: { 'x-api-token': key } });
  return res.json<{ repositories: { name: string }[] }>().repositories.map((r) => r.name);
};

test('a repository missing from the local host: 404 naming the command, and no claim left behind', async () => {
  const res = await post('createQueue', {
    repo: { host: 'local', owner: 'acme', name: 'ap' },
    targetBranch: 'main',
  });
  expect(res.statusCode).toBe(404);
  expect(res.body).toBe(
    'Repository local/acme/ap does not exist on the local git host; create it with `npm run repos -- create local/acme/ap` and push its target branch first.',
  );
  expect(await claimed()).toEqual([]);
});

test('an existing repository: the queue is created and the repository claimed', async () => {
  const res = await post('createQueue', {
    repo: { host: 'local', owner: 'acme', name: 'app' },
    targetBranch: 'main',
  });
  expect(res.statusCode).toBe(200);
  expect(await claimed()).toEqual(['app']);
});

test("another organisation's existing repository answers as before: not yours, nothing said about the disk", async () => {
  const res = await post(
    'createQueue',
    { repo: { host: 'local', owner: 'acme', name: 'app' }, targetBranch: 'release' },
    otherKey,
  );
  expect(res.statusCode).toBe(404);
  expect(res.body).toMatch(/^Repository local\/acme\/app is not one of your organisation's repositories/);
});

test('a repository of the GitHub host is not looked for on disk', async () => {
  expect(
    await localRepositoryCheck({ gitRoot, gitHubHost: 'github.com' })({
      host: 'github.com',
      owner: 'a',
      name: 'b',
    }),
  ).toBeNull();
});

test('an API without the git root (another machine) refuses nothing', async () => {
  const check = localRepositoryCheck({ gitRoot: path.join(gitRoot, 'not-here') });
  expect(await check({ host: 'local', owner: 'acme', name: 'missing' })).toBeNull();
});
