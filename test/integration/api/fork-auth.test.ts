/**
 * Fork authentication through the real app on the real PostgreSQL (plugins/fork-auth.ts, migration
 * 0015): a repository's public id (x-trunk-public-repo-id) authorises only the routes that opt in, and
 * only for its own repository; a forked workflow run id (x-forked-workflow-run-id) is checked with
 * GitHub (fakehub) before setImpactedTargets is accepted. The upload routes opt in with
 * `config: { forkAuth: 'public-repo-id' }`; a stand-in route with that flag is added here.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Pool } from 'pg';
import { z } from 'zod';
import { createForkedRunVerifier } from '../../../github/inbound/forked-runs';
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createGitHubClients } from '../../../github/app/rest-client';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createGitHubInstallationStore } from '../../../github/store/installations';
import { createRepositoryOwnerStore } from '../../../stores/repository-owners';
import { createRepositoryPublicIds } from '../../../stores/repository-public-ids';
import { organisationOf } from '../../../api/plugins/request-context';
import { repositoryAccessWithGitHub } from '../../../api/plugins/github-repository-access';
import { RepoRef } from '../../../api/schemas/common';
import type { SetImpactedTargetsRequest } from '../../../api/schemas/merge-queue';
import { buildTestApp } from '../../support/app';
import { useFakeHub, workClone } from '../../support/fakehub';
import { addWorkflowRun } from '../../support/fakehub/rest-actions';
import { claimRepository } from '../../support/ownership';
import { createMigratedDatabase } from '../../support/postgres';

const hub = useFakeHub();
let pool: Pool;
let acmeKey: string;
let globexKey: string;
const app = { local: {} as FastifyInstance };
const uploads: { org: string; repo: string }[] = [];
const targets: { org: string; request: SetImpactedTargetsRequest }[] = [];

const local = (name: string) => ({ host: 'local', owner: 'acme', name });
const gh = { host: 'github.com', owner: 'acme', name: 'widgets' };
let prNumber = 0;
let prSha = '';

/** The stand-in for createBundleUpload: a route that opts in to the public id. */
function addUploadRoute(instance: FastifyInstance) {
  instance
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/v1/test/fork-upload',
      { schema: { body: z.object({ repo: RepoRef }) }, config: { forkAuth: 'public-repo-id' } },
      (request, reply) => {
        uploads.push({ org: organisationOf(request).slug, repo: request.body.repo.name });
        void reply.send({});
      },
    );
}

async function buildApp(
  rateLimit?: { max: number; windowMs: number },
  runChecks?: { perAddressPerMinute: number; perRepositoryPerHour: number },
) {
  const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
  const clients = await createGitHubClients(settings, await createGitHubAppAuth(settings), { retries: 0 });
  const { app: built, log } = await buildTestApp(pool, {
    repositories: repositoryAccessWithGitHub(pool, { gitHubHost: 'github.com' }),
    forkAuth: {
      publicIds: createRepositoryPublicIds(pool),
      forkedRuns: { host: 'github.com', verifier: createForkedRunVerifier(clients) },
      ...(runChecks ? { runChecks } : {}),
    },
    mergeQueue: {
      setImpactedTargets: (change, request) => {
        targets.push({ org: change.org.slug, request });
        return Promise.resolve();
      },
    },
    ...(rateLimit ? { rateLimit } : {}),
  });
  addUploadRoute(built);
  return { app: built, log };
}

async function publicIdOf(key: string, name: string): Promise<string> {
  const res = await app.local.inject({
    method: 'GET',
    url: '/v1/repositories',
    headers: { 'x-api-token': key },
  });
  expect(res.statusCode).toBe(200);
  const found = res
    .json<{ repositories: { name: string; public_id: string }[] }>()
    .repositories.find((r) => r.name === name);
  return found!.public_id;
}

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('fork_auth'));
  const keys = createApiKeyStore(pool);
  acmeKey = (await keys.create('acme')).key;
  globexKey = (await keys.create('globex')).key;
  await claimRepository(pool, 'acme', local('app'));
  await claimRepository(pool, 'acme', local('other'));
  await claimRepository(pool, 'globex', local('rival'));

  // A GitHub repository acme owns through its linked installation, with an open PR.
  const installation = hub().createInstallation({ account: 'acme' });
  await hub().createRepository({ installationId: installation.id, owner: 'acme', name: 'widgets' });
  const clone = await workClone(hub().gitUrl('acme', 'widgets'), () =>
    hub().installationToken(installation.id),
  );
  await clone.push(await clone.commit({ 'README.md': 'widgets\n' }), 'main');
  prSha = await clone.commit({ 'feature.txt': 'from a fork\n' });
  await clone.push(prSha, 'topic');
  prNumber = (await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'topic' })).number;
  const store = createGitHubInstallationStore(pool);
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM organisations WHERE slug = 'acme'");
  await store.link(
    rows[0]!.id,
    { installationId: installation.id, host: 'github.com', accountLogin: 'acme', suspendedAt: null },
    'operator',
  );
  await store.syncRepositories(installation.id, [{ owner: 'acme', name: 'widgets' }]);
  app.local = (await buildApp()).app;
});
afterAll(async () => {
  await app.local?.close();
  await pool?.end();
});

const upload = (headers: Record<string, string>, repo: object) =>
  app.local.inject({ method: 'POST', url: '/v1/test/fork-upload', headers, payload: { repo } });

describe('x-trunk-public-repo-id', () => {
  it('is listed with each repository, unique and random, and lets a fork upload for that repository', async () => {
    const id = await publicIdOf(acmeKey, 'app');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await publicIdOf(acmeKey, 'other')).not.toBe(id);
    const res = await upload({ 'x-api-token': '', 'x-trunk-public-repo-id': id }, local('app'));
    expect(res.statusCode).toBe(200);
    expect(uploads.at(-1)).toEqual({ org: 'acme', repo: 'app' });
  });

  it('lets the CLI read the quarantine config of that repository (getQuarantineConfig opts in)', async () => {
    const id = await publicIdOf(acmeKey, 'app');
    const ask = (repo: object) =>
      app.local.inject({
        method: 'POST',
        url: '/v1/metrics/getQuarantineConfig',
        headers: { 'x-api-token': '', 'x-trunk-public-repo-id': id },
        payload: { repo, orgUrlSlug: 'acme', remoteUrls: [], testIdentifiers: [] },
      });
    const own = await ask(local('app'));
    expect([own.statusCode, own.json()]).toEqual([200, { isDisabled: true, testIds: [] }]);
    const other = await ask(local('other'));
    expect(other.statusCode).toBe(403);
  });

  it('refuses the public id for any other repository, the same organisation’s or another’s (403)', async () => {
    const id = await publicIdOf(acmeKey, 'app');
    for (const repo of [local('other'), { host: 'local', owner: 'globex', name: 'rival' }, local('nobody')]) {
      const res = await upload({ 'x-trunk-public-repo-id': id }, repo);
      expect(res.statusCode).toBe(403);
      expect(res.body).toBe(
        `The public repository id in x-trunk-public-repo-id authorises uploads for its own repository only, not for ${repo.host}/${repo.owner}/${repo.name}.`,
      );
    }
  });

  it('authorises no other operation: merge-queue changes, flaky-test reads and listings answer 401', async () => {
    const id = await publicIdOf(acmeKey, 'app');
    const headers = { 'x-api-token': '', 'x-trunk-public-repo-id': id };
    const calls = [
      {
        url: '/v1/submitPullRequest',
        payload: { repo: local('app'), targetBranch: 'main', pr: { number: 1 } },
      },
      {
        url: '/v1/setImpactedTargets',
        payload: {
          repo: local('app'),
          targetBranch: 'main',
          pr: { number: 1, sha: 'a' },
          impactedTargets: 'ALL',
        },
      },
      {
        url: '/v1/flaky-tests/list-quarantined-tests',
        payload: { repo: local('app'), org_url_slug: 'acme', page_query: { page_size: 10 } },
      },
      { url: '/v1/repositories/claim', payload: { repo: local('app') } },
    ];
    for (const call of calls) {
      const res = await app.local.inject({ method: 'POST', headers, ...call });
      expect({ url: call.url, status: res.statusCode, body: res.body }).toEqual({
        url: call.url,
        status: 401,
        body: 'Missing API key: send it in the x-api-token header.',
      });
    }
    const list = await app.local.inject({ method: 'GET', url: '/v1/repositories', headers });
    expect(list.statusCode).toBe(401);
  });

  it('answers 401 for an unknown or malformed id, without echoing it', async () => {
    for (const id of [randomUUID(), 'not-an-id', "' OR 1=1 --"]) {
      const res = await upload({ 'x-trunk-public-repo-id': id }, local('app'));
      expect(res.statusCode).toBe(401);
      expect(res.body).toBe('The public repository id in x-trunk-public-repo-id is not valid.');
    }
  });

  it('is ignored next to an API key: the key decides', async () => {
    const id = await publicIdOf(acmeKey, 'app');
    const res = await upload({ 'x-api-token': acmeKey, 'x-trunk-public-repo-id': id }, local('other'));
    expect(res.statusCode).toBe(200);
    const rival = await upload({ 'x-api-token': globexKey, 'x-trunk-public-repo-id': id }, local('app'));
    expect(rival.statusCode).toBe(404);
  });

  it('changes when the repository moves to another organisation; the old id stops working', async () => {
    await claimRepository(pool, 'acme', local('moving'));
    const before = await publicIdOf(acmeKey, 'moving');
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM organisations WHERE slug = 'globex'");
    await createRepositoryOwnerStore(pool).transfer(local('moving'), rows[0]!.id);
    const after = await publicIdOf(globexKey, 'moving');
    expect(after).not.toBe(before);
    expect((await upload({ 'x-trunk-public-repo-id': before }, local('moving'))).statusCode).toBe(401);
    const res = await upload({ 'x-trunk-public-repo-id': after }, local('moving'));
    expect(res.statusCode).toBe(200);
    expect(uploads.at(-1)).toEqual({ org: 'globex', repo: 'moving' });
  });

  it('counts wrong ids as failed authentications of the address (429 past the limit)', async () => {
    const limited = (await buildApp({ max: 3, windowMs: 60_000 })).app;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await limited.inject({
          method: 'POST',
          url: '/v1/test/fork-upload',
          headers: { 'x-trunk-public-repo-id': randomUUID() },
          payload: { repo: local('app') },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('x-forked-workflow-run-id on setImpactedTargets (GitHub through fakehub)', () => {
  const impacted = (
    headers: Record<string, string>,
    over: { repo?: object; number?: number; sha?: string } = {},
  ) =>
    app.local.inject({
      method: 'POST',
      url: '/v1/setImpactedTargets',
      headers: { 'x-api-token': '', ...headers },
      payload: {
        repo: over.repo ?? gh,
        targetBranch: 'main',
        pr: { number: String(over.number ?? prNumber), sha: over.sha ?? prSha },
        impactedTargets: ['//app:lib'],
      },
    });
  const forkRun = (over: Partial<Parameters<typeof addWorkflowRun>[1]> = {}) =>
    String(
      addWorkflowRun(hub(), {
        owner: 'acme',
        repo: 'widgets',
        headSha: prSha,
        fork: { owner: 'contributor', name: 'widgets' },
        ...over,
      }),
    );

  it("accepts a fork's run in progress of the PR's head, for the repository's organisation", async () => {
    const before = targets.length;
    const res = await impacted({ 'x-forked-workflow-run-id': forkRun() });
    expect(res.statusCode).toBe(200);
    expect(targets.length).toBe(before + 1);
    expect(targets.at(-1)).toMatchObject({ org: 'acme', request: { pr: { number: prNumber, sha: prSha } } });
  });

  it.each([
    ['an unknown run', () => '999999999', 'does not exist in acme/widgets'],
    [
      'a run of the repository itself',
      () => forkRun({ fork: undefined as never }),
      'is not a run of a pull request from a fork',
    ],
    ['a completed run', () => forkRun({ status: 'completed' }), 'has completed'],
    ['a push run', () => forkRun({ event: 'push' }), 'was not started by a pull_request event'],
    ['a run of another commit', () => forkRun({ headSha: 'f'.repeat(40) }), 'did not run pr.sha'],
    [
      'a run listed for another PR',
      () => forkRun({ pullRequests: [prNumber + 50] }),
      'is not a run of pull request #',
    ],
  ])('refuses %s (401)', async (_what, run, reason) => {
    const before = targets.length;
    const res = await impacted({ 'x-forked-workflow-run-id': run() });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain(reason);
    expect(res.body).toMatch(/^x-forked-workflow-run-id was not accepted: /);
    expect(targets.length).toBe(before);
  });

  it('refuses a run whose sha is not the head of the PR named', async () => {
    const other = String(
      addWorkflowRun(hub(), {
        owner: 'acme',
        repo: 'widgets',
        headSha: 'e'.repeat(40),
        fork: { owner: 'c', name: 'w' },
      }),
    );
    const res = await impacted({ 'x-forked-workflow-run-id': other }, { sha: 'e'.repeat(40) });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe(
      `x-forked-workflow-run-id was not accepted: pr.sha is not the head of pull request #${prNumber}.`,
    );
  });

  it('refuses a malformed run id before asking GitHub', async () => {
    const asked = hub().requests.length;
    const res = await impacted({ 'x-forked-workflow-run-id': '12; DROP' });
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('x-forked-workflow-run-id must be a GitHub Actions run id (a whole number).');
    expect(hub().requests.length).toBe(asked);
  });

  it('refuses repositories without the GitHub App (403), naming what they need', async () => {
    const res = await impacted({ 'x-forked-workflow-run-id': forkRun() }, { repo: local('app') });
    expect(res.statusCode).toBe(403);
    expect(res.body).toBe(
      "Fork submissions with x-forked-workflow-run-id need railyard's GitHub App installed on local/acme/app and linked (docs/github.md); otherwise send an API key.",
    );
  });

  it('authorises nothing else: submitPullRequest with a valid run id answers 401', async () => {
    const res = await app.local.inject({
      method: 'POST',
      url: '/v1/submitPullRequest',
      headers: { 'x-api-token': '', 'x-forked-workflow-run-id': forkRun() },
      payload: { repo: gh, targetBranch: 'main', pr: { number: prNumber } },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('x-forked-workflow-run-id spends a bounded share of the installation budget (issue 24)', () => {
  // Two addresses may check 3 runs a minute each; the repository 5 an hour, whoever asks.
  let bounded: FastifyInstance;
  beforeAll(async () => {
    bounded = (await buildApp(undefined, { perAddressPerMinute: 3, perRepositoryPerHour: 5 })).app;
  });
  afterAll(() => bounded.close());

  const runCalls = () => hub().requests.filter((r) => r.path.includes('/actions/runs/')).length;
  const impacted = (runId: string, address: string, payload?: string) =>
    bounded.inject({
      method: 'POST',
      url: '/v1/setImpactedTargets',
      remoteAddress: address,
      headers: { 'x-api-token': '', 'x-forked-workflow-run-id': runId, 'content-type': 'application/json' },
      payload:
        payload ??
        JSON.stringify({
          repo: gh,
          targetBranch: 'main',
          pr: { number: prNumber, sha: prSha },
          impactedTargets: ['//app:lib'],
        }),
    });

  it('asks GitHub once about an unknown run id; asking again is refused without a call', async () => {
    const before = runCalls();
    const first = await impacted('888888881', '198.51.100.1');
    const again = await impacted('888888881', '198.51.100.2');
    expect([first.statusCode, again.statusCode]).toEqual([401, 401]);
    expect(again.body).toBe(first.body);
    expect(first.body).toBe(
      'x-forked-workflow-run-id was not accepted: Workflow run 888888881 does not exist in acme/widgets.',
    );
    expect(runCalls()).toBe(before + 1);
  });

  it("counts checks against the caller's address: past its budget, 429 and no call to GitHub", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await impacted(String(777000 + i), '203.0.113.9')).statusCode);
    const before = runCalls();
    const limited = await impacted('777999', '203.0.113.9');
    expect([...statuses, limited.statusCode]).toEqual([401, 401, 401, 429]);
    expect(limited.body).toMatch(
      /^Address 203\.0\.113\.9 asked for more than 3 x-forked-workflow-run-id checks in 60 seconds; retry after \d+ seconds?\.$/,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(runCalls()).toBe(before);
  });

  it('bounds the checks of one repository whoever asks; keyed requests of its owner still go through', async () => {
    // 1 (unknown run) + 3 (203.0.113.9) = 4 of the repository's 5 are spent; one fresh address spends the last.
    expect((await impacted('666001', '192.0.2.1')).statusCode).toBe(401);
    const before = runCalls();
    const limited = await impacted('666002', '192.0.2.2');
    expect(limited.statusCode).toBe(429);
    expect(limited.body).toMatch(
      /^github\.com\/acme\/widgets had more than 5 x-forked-workflow-run-id checks in the last hour; retry after \d+ seconds, or send an API key\.$/,
    );
    expect(runCalls()).toBe(before);
    const keyed = await bounded.inject({
      method: 'POST',
      url: '/v1/setImpactedTargets',
      headers: { 'x-api-token': acmeKey },
      payload: {
        repo: gh,
        targetBranch: 'main',
        pr: { number: prNumber, sha: prSha },
        impactedTargets: 'ALL',
      },
    });
    expect(keyed.statusCode).toBe(200);
  });

  it('refuses a body over 2 MiB (413) before parsing it, where a keyed request may send 20 MiB', async () => {
    const big = JSON.stringify({ repo: gh, padding: 'x'.repeat(3 * 1024 * 1024) });
    const res = await impacted('555001', '192.0.2.77', big);
    expect(res.statusCode).toBe(413);
    expect(res.body).toBe(
      'A request with x-forked-workflow-run-id may send at most 2 MiB; send an API key for larger bodies.',
    );
  });
});
