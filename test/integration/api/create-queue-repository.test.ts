/**
 * createQueue for a repository that does not exist on the local git host answers 404 with a sentence
 * naming the command that creates it, and leaves no claim behind; an existing one is created (and
 * claimed on first use). Real HTTP stack, real PostgreSQL, real bare repositories on disk under the git
 * root the worker serves, and the real queue behind the API (test/support/api-stack.ts): a created
 * queue is a running queue workflow. Each test has organisations and a repository of its own.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { initBareRepository } from '../../../git/repository-path';
import { localRepositoryCheck } from '../../../api/routes/merge-queue/repository-on-host';
import { queueWorkflowId, type RepositoryKey } from '../../../contract';
import { useApiStack } from '../../support/api-stack';

const api = useApiStack({
  prefix: 'api_create_queue_repo',
  app: ({ gitRoot }) => ({ repositoryOnHost: localRepositoryCheck({ gitRoot, gitHubHost: 'github.com' }) }),
});

const post = (url: string, body: object, token: string) =>
  api
    .stack()
    .app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': token }, payload: body });
const claimed = async (token: string) => {
  const res = await api
    .stack()
    .app.inject({ method: 'GET', url: '/v1/repositories', headers: { 'x-api-token': token } });
  return res.json<{ repositories: { name: string }[] }>().repositories.map((r) => r.name);
};

/** A bare repository of the test's own on the worker's git host (`local/acme/app-…`). */
async function newRepository() {
  const repo = { host: 'local', owner: 'acme', name: `app-${randomUUID().slice(0, 8)}` };
  await initBareRepository(api.stack().deployment.gitRoot, repo);
  return repo;
}

type Org = { id: string; token: string };

/** createQueue through the API as `org`; the queue workflow it may start ends after the test. */
function createQueue(org: Org, repo: RepositoryKey, targetBranch: string) {
  api.stack().endAfterTest({ organisationId: org.id, repo, targetBranch });
  return post('createQueue', { repo, targetBranch }, org.token);
}

/** Whether the queue workflow of `org`'s queue runs. */
async function queueStatus(org: Org, repo: RepositoryKey, targetBranch: string) {
  const id = queueWorkflowId({ organisationId: org.id, repo, targetBranch });
  return (await api.stack().client.workflow.getHandle(id).describe()).status.name;
}

test('a repository missing from the local host: 404 naming the command, and no claim left behind', async () => {
  const org = await api.stack().newOrganisation();
  const repo = await newRepository();
  const missing = { ...repo, name: repo.name.slice(0, -1) };
  const res = await createQueue(org, missing, 'main');
  expect(res.statusCode).toBe(404);
  expect(res.body).toBe(
    `Repository local/acme/${missing.name} does not exist on the local git host; create it with \`npm run repos -- create local/acme/${missing.name}\` and push its target branch first.`,
  );
  expect(await claimed(org.token)).toEqual([]);
});

test('an existing repository: the queue is created and the repository claimed', async () => {
  const org = await api.stack().newOrganisation();
  const repo = await newRepository();
  const res = await createQueue(org, repo, 'main');
  expect(res.statusCode).toBe(200);
  expect(await claimed(org.token)).toEqual([repo.name]);
  expect(await queueStatus(org, repo, 'main')).toBe('RUNNING');
  expect((await post('getQueue', { repo, targetBranch: 'main' }, org.token)).json()).toMatchObject({
    state: 'running',
    branch: 'main',
  });
});

test("another organisation's existing repository answers as before: not yours, nothing said about the disk", async () => {
  const owner = await api.stack().newOrganisation();
  const other = await api.stack().newOrganisation();
  const repo = await newRepository();
  expect((await createQueue(owner, repo, 'main')).statusCode).toBe(200);
  const res = await createQueue(other, repo, 'release');
  expect(res.statusCode).toBe(404);
  expect(res.body).toMatch(
    new RegExp(`^Repository local/acme/${repo.name} is not one of your organisation's repositories`),
  );
  expect(await claimed(other.token)).toEqual([]);
});

test('a repository of the GitHub host is not looked for on disk', async () => {
  const { gitRoot } = api.stack().deployment;
  expect(
    await localRepositoryCheck({ gitRoot, gitHubHost: 'github.com' })({
      host: 'github.com',
      owner: 'a',
      name: 'b',
    }),
  ).toBeNull();
});

test('an API without the git root (another machine) refuses nothing', async () => {
  const check = localRepositoryCheck({ gitRoot: path.join(api.stack().deployment.gitRoot, 'not-here') });
  expect(await check({ host: 'local', owner: 'acme', name: 'missing' })).toBeNull();
});
