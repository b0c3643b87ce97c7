/**
 * GitHub App installations on the real PostgreSQL (docs/adr/0008-github-installations.md): the
 * store's link and repository-sync rules, the linking API and its tenant safety, and the ownership
 * rule for the GitHub host (a repository belongs to the organisation whose linked installation covers
 * it), with a loopback stand-in for GitHub's installation endpoints.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createInstallationsApi } from '../../../github/app/installations-api';
import { createApiKeyStore } from '../../../stores/api-keys';
import {
  createGitHubInstallationStore,
  installationOwnership,
  InstallationNotLinkedError,
} from '../../../github/store/installations';
import { createRepositoryOwnerStore } from '../../../stores/repository-owners';
import { repositoryAccessWithGitHub } from '../../../api/plugins/github-repository-access';
import type { ClaimPolicy } from '../../../api/plugins/repository-access';
import { buildTestApp } from '../../support/app';
import { startGitHubAppStub, type GitHubAppStub } from '../../support/github-app-stub';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let stub: GitHubAppStub;
let nextInstallation = 1_000;
const ADMIN_TOKEN = 'ghu_admin';

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('github_installations'));
  stub = await startGitHubAppStub();
});
afterAll(async () => {
  await stub?.close();
  await pool?.end();
});

async function organisation(slug: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    'INSERT INTO organisations (slug) VALUES ($1) RETURNING id',
    [`${slug}-${randomUUID().slice(0, 8)}`],
  );
  return rows[0]!.id;
}

/** A fresh GitHub account with an installation covering `names` (repositories of that account). */
function installation(names: string[], extra: { suspendedAt?: string } = {}) {
  const id = ++nextInstallation;
  const account = `acct${id}`;
  stub.installations.set(id, { account, repositories: names.map((n) => `${account}/${n}`), ...extra });
  return { id, account, repo: (name: string) => ({ host: 'github.com', owner: account, name }) };
}

const notLinkable = (id: number) =>
  `GitHub App installation ${id} cannot be linked: it is not an installation of this server's app whose GitHub account your GitHub user administers, or another organisation has linked it (then ask your railyard operator).`;

const link = (id: number, account: string) => ({
  installationId: id,
  host: 'github.com',
  accountLogin: account,
  suspendedAt: null,
});

describe('the installation store', () => {
  const store = () => createGitHubInstallationStore(pool);

  test('an installation links to one organisation; another cannot take it, even racing', async () => {
    const orgs = await Promise.all(Array.from({ length: 10 }, (_, i) => organisation(`race${i}`)));
    const i = installation([]);
    const results = await Promise.all(orgs.map((org) => store().link(org, link(i.id, i.account), 'api')));
    expect(results.filter((r) => r.kind === 'linked')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'taken')).toHaveLength(9);
    const winner = orgs[results.findIndex((r) => r.kind === 'linked')]!;
    expect(await store().link(winner, link(i.id, i.account), 'api')).toEqual({ kind: 'already_yours' });
    expect((await store().find(i.id))?.organisationId).toBe(winner);
    expect((await store().list(orgs.find((o) => o !== winner))).map((x) => x.installationId)).toEqual([]);
  });

  test('a sync owns the listed repositories, drops the missing ones, and unlinking drops them all', async () => {
    const acme = await organisation('acme');
    const i = installation([]);
    const owners = createRepositoryOwnerStore(pool);
    const ownership = installationOwnership(pool, 'github.com', owners);
    await store().link(acme, link(i.id, i.account), 'operator');
    const first = await store().syncRepositories(i.id, [
      { owner: i.account, name: 'app' },
      { owner: i.account, name: 'lib' },
      { owner: i.account.toUpperCase(), name: 'APP' }, // one repository, two spellings
    ]);
    expect(first).toEqual({ covered: 2, added: 2, removed: 0, takenOver: [], ownedElsewhere: [] });
    expect(await ownership.owns(acme, { host: 'GitHub.com', owner: i.account, name: 'App' })).toBe(true);
    const second = await store().syncRepositories(i.id, [{ owner: i.account, name: 'lib' }]);
    expect(second).toMatchObject({ covered: 1, added: 0, removed: 1 });
    expect(await ownership.owns(acme, i.repo('app'))).toBe(false);
    expect(await store().addRepositories(i.id, [{ owner: i.account, name: 'web' }])).toMatchObject({
      covered: 2,
      added: 1,
    });
    expect(await store().removeRepositories(i.id, [{ owner: i.account, name: 'web' }])).toBe(1);
    expect((await store().find(i.id))?.repositories).toBe(1);
    expect(await store().unlink(i.id)).toBe(true);
    expect(await ownership.owns(acme, i.repo('lib'))).toBe(false);
    expect((await owners.list(acme)).length).toBe(0);
    expect(await store().unlink(i.id)).toBe(false);
    await expect(store().syncRepositories(i.id, [])).rejects.toBeInstanceOf(InstallationNotLinkedError);
  });

  test("an operator's link takes over earlier claims of other organisations; an API link leaves them", async () => {
    const [acme, globex] = [await organisation('acme'), await organisation('globex')];
    const owners = createRepositoryOwnerStore(pool);
    const viaApi = installation([]);
    await owners.claim(globex, viaApi.repo('app'), 'first-use');
    await store().link(acme, link(viaApi.id, viaApi.account), 'api');
    const kept = await store().syncRepositories(viaApi.id, [
      { owner: viaApi.account, name: 'app' },
      { owner: viaApi.account, name: 'lib' },
    ]);
    expect(kept).toEqual({
      covered: 1,
      added: 1,
      removed: 0,
      takenOver: [],
      ownedElsewhere: [viaApi.repo('app')],
    });
    expect(await owners.owns(globex, viaApi.repo('app'))).toBe(true);

    const byOperator = installation([]);
    await owners.claim(globex, byOperator.repo('app'), 'first-use');
    await owners.claim(acme, byOperator.repo('own'), 'api');
    await store().link(acme, link(byOperator.id, byOperator.account), 'operator');
    const moved = await store().syncRepositories(byOperator.id, [
      { owner: byOperator.account, name: 'app' },
      { owner: byOperator.account, name: 'own' },
    ]);
    expect(moved).toEqual({
      covered: 2,
      added: 1,
      removed: 0,
      takenOver: [byOperator.repo('app')],
      ownedElsewhere: [],
    });
    expect(await owners.owns(globex, byOperator.repo('app'))).toBe(false);
    // A claim made without the installation does not count for the GitHub host.
    const loose = installation([]);
    await owners.claim(acme, loose.repo('x'), 'api');
    expect(await installationOwnership(pool, 'github.com', owners).owns(acme, loose.repo('x'))).toBe(false);
    expect(
      await installationOwnership(pool, 'github.com', owners).owns(acme, {
        ...loose.repo('x'),
        host: 'local',
      }),
    ).toBe(false);
  });
});

describe('the linking API and the GitHub host', () => {
  async function appWith(claims: ClaimPolicy = 'first-use') {
    const keys = createApiKeyStore(pool);
    const suffix = randomUUID().slice(0, 8);
    const acme = await keys.create(`acme-${suffix}`);
    const globex = await keys.create(`globex-${suffix}`);
    const settings = { appId: stub.appId, privateKey: stub.privateKey, apiUrl: stub.apiUrl };
    const { app, log } = await buildTestApp(pool, {
      keys,
      repositories: repositoryAccessWithGitHub(pool, { claims, gitHubHost: 'github.com' }),
      gitHubInstallations: {
        store: createGitHubInstallationStore(pool),
        github: await createInstallationsApi(settings, await createGitHubAppAuth(settings)),
        host: 'github.com',
        // The proof itself is tested on fakehub (installation-linking-proof.test.ts); here the
        // token 'ghu_admin' stands for a person who administers every account.
        proof: {
          administers: (token: string) =>
            Promise.resolve(
              token === ADMIN_TOKEN
                ? { kind: 'administers' as const, userLogin: 'admin', accountLogin: 'any' }
                : { kind: 'not_shown' as const },
            ),
        },
      },
    });
    const call = (method: 'GET' | 'POST', url: string, key: string, body?: object) =>
      app.inject({ method, url, headers: { 'x-api-token': key }, ...(body ? { payload: body } : {}) });
    return { app, log, acme: acme.key, globex: globex.key, call };
  }

  test('an organisation links its installation and owns its repositories; another can neither link nor see it', async () => {
    const { app, log, acme, globex, call } = await appWith();
    const i = installation(['app', 'lib']);
    const linked = await call('POST', '/v1/github/installations/link', acme, {
      installation_id: i.id,
      github_user_token: ADMIN_TOKEN,
    });
    expect([linked.statusCode, linked.json()]).toEqual([
      200,
      {
        installation: {
          installation_id: i.id,
          account_login: i.account,
          host: 'github.com',
          linked_by: 'api',
          linked_at: expect.stringMatching(/^\d{4}-/),
          suspended_at: null,
          repositories: 2,
        },
        linked: true,
        repositories: { covered: 2, added: 2, removed: 0, owned_elsewhere: [] },
      },
    ]);
    const again = await call('POST', '/v1/github/installations/link', acme, { installation_id: i.id });
    expect(again.json()).toMatchObject({ linked: false, repositories: { covered: 2, added: 0 } });

    // Even with a token of someone who administers the account, another organisation's is the one answer.
    const theirs = await call('POST', '/v1/github/installations/link', globex, {
      installation_id: i.id,
      github_user_token: ADMIN_TOKEN,
    });
    expect([theirs.statusCode, theirs.body]).toEqual([404, notLinkable(i.id)]);
    expect((await call('GET', '/v1/github/installations', globex)).json()).toEqual({ installations: [] });
    expect((await call('GET', '/v1/github/installations', acme)).json().installations).toHaveLength(1);

    // The owner reaches the repository (the queue does not exist yet); the other gets the coverage 404.
    const body = { repo: i.repo('app'), targetBranch: 'main' };
    expect((await call('POST', '/v1/createQueue', acme, body)).statusCode).toBe(200);
    for (const url of ['/v1/getQueue', '/v1/createQueue']) {
      const refused = await call('POST', url, globex, body);
      expect([refused.statusCode, refused.body]).toEqual([
        404,
        `No GitHub App installation linked to your organisation covers github.com/${i.account}/app; install the app on the repository and link the installation (POST /v1/github/installations/link).`,
      ]);
    }
    // Claims do not confer GitHub repositories; the owner's own claim is a no-op.
    const claim = await call('POST', '/v1/repositories/claim', globex, { repo: i.repo('app') });
    expect(claim.statusCode).toBe(403);
    expect(claim.body).toMatch(
      /^Repositories on github.com belong to the organisation whose GitHub App installation/,
    );
    expect((await call('POST', '/v1/repositories/claim', acme, { repo: i.repo('app') })).json()).toEqual({
      repository: i.repo('app'),
      claimed: false,
    });
    // No token reaches the log.
    for (const m of stub.minted) expect(log.text()).not.toContain(m.token);
    await app.close();
  });

  test('the routes are in a valid OpenAPI document', async () => {
    const { app } = await appWith();
    const doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: object }>();
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/github/installations', '/v1/github/installations/link']),
    );
    await app.close();
  });

  test('a GitHub repository no linked installation covers is a 404 saying so; other hosts keep their claims', async () => {
    const { app, acme, call } = await appWith();
    const uncovered = await call('POST', '/v1/createQueue', acme, {
      repo: { host: 'github.com', owner: 'nobody', name: 'app' },
      targetBranch: 'main',
    });
    expect([uncovered.statusCode, uncovered.body]).toEqual([
      404,
      'No GitHub App installation linked to your organisation covers github.com/nobody/app; install the app on the repository and link the installation (POST /v1/github/installations/link).',
    ]);
    const local = { host: 'local', owner: 'acme', name: `app-${randomUUID().slice(0, 8)}` };
    expect(
      (await call('POST', '/v1/createQueue', acme, { repo: local, targetBranch: 'main' })).statusCode,
    ).toBe(200);
    await app.close();
  });

  test('unknown, suspended, badly named and operator-only links are refused with a sentence', async () => {
    const { app, acme, call } = await appWith();
    const missing = await call('POST', '/v1/github/installations/link', acme, {
      installation_id: 987_654_321,
      github_user_token: ADMIN_TOKEN,
    });
    expect([missing.statusCode, missing.body]).toEqual([404, notLinkable(987_654_321)]);
    const s = installation(['app'], { suspendedAt: '2026-01-01T00:00:00Z' });
    const suspended = await call('POST', '/v1/github/installations/link', acme, {
      installation_id: s.id,
      github_user_token: ADMIN_TOKEN,
    });
    expect([suspended.statusCode, suspended.body]).toEqual([
      409,
      `GitHub App installation ${s.id} is suspended on GitHub; unsuspend it, then link it.`,
    ]);
    const bad = await call('POST', '/v1/github/installations/link', acme, { installation_id: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/installation_id/);
    await app.close();

    const operatorOnly = await appWith('operator');
    const refused = await operatorOnly.call('POST', '/v1/github/installations/link', operatorOnly.acme, {
      installation_id: installation(['app']).id,
    });
    expect([refused.statusCode, refused.body]).toEqual([
      403,
      'GitHub App installations are linked by the operator on this server (npm run github -- link); ask your railyard operator.',
    ]);
    await operatorOnly.app.close();
  });

  test('a listing GitHub cannot give is a 503 after linking; linking again lists the repositories', async () => {
    const { app, acme, call } = await appWith();
    const i = installation(['app']);
    stub.failMintsWith = 502;
    try {
      const failed = await call('POST', '/v1/github/installations/link', acme, {
        installation_id: i.id,
        github_user_token: ADMIN_TOKEN,
      });
      expect([failed.statusCode, failed.body]).toEqual([
        503,
        `GitHub App installation ${i.id} is linked, but its repositories could not be listed (Could not get an access token for GitHub App installation ${i.id}: GitHub answered 502: Server Error [redacted].); send the link again to retry.`,
      ]);
    } finally {
      stub.failMintsWith = undefined;
    }
    const retried = await call('POST', '/v1/github/installations/link', acme, { installation_id: i.id });
    expect(retried.json()).toMatchObject({ linked: false, repositories: { covered: 1, added: 1 } });
    await app.close();
  });
});
