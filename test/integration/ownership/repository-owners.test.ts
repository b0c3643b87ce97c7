/**
 * Repository ownership on the real PostgreSQL (docs/adr/0006-repository-ownership.md): the store's
 * claim rules, the claim endpoints under each policy, the metrics filter, and the worker's second check
 * with real git (a queue of another organisation cannot build on or land in the repository).
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createGitActivities } from '../../../activities/merge-queue/git-activities';
import { createApiKeyStore } from '../../../stores/api-keys';
import { createRepositoryOwnerStore } from '../../../stores/repository-owners';
import { repositoryAccessOver, type ClaimPolicy } from '../../../api/plugins/repository-access';
import { buildTestApp } from '../../support/app';
import { createRepoWithMain } from '../../support/git-fixture';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('ownership'));
});
afterAll(async () => {
  await pool?.end();
});

async function organisation(slug: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    'INSERT INTO organisations (slug) VALUES ($1) RETURNING id',
    [`${slug}-${randomUUID().slice(0, 8)}`],
  );
  return rows[0]!.id;
}

const repo = (name = `app-${randomUUID().slice(0, 8)}`) => ({ host: 'github.com', owner: 'acme', name });

describe('the owner store', () => {
  test('a claim takes an unclaimed repository once; another organisation cannot take it, in any spelling', async () => {
    const store = createRepositoryOwnerStore(pool);
    const [acme, globex] = [await organisation('acme'), await organisation('globex')];
    const r = repo();
    expect(await store.claim(acme, r, 'api')).toEqual({ kind: 'claimed' });
    expect(await store.claim(acme, r, 'api')).toEqual({ kind: 'already_yours' });
    const shouted = { host: 'GitHub.com', owner: 'ACME', name: r.name.toUpperCase() };
    expect(await store.claim(globex, shouted, 'first-use')).toEqual({ kind: 'taken' });
    expect(await store.owns(acme, shouted)).toBe(true);
    expect(await store.owns(globex, r)).toBe(false);
  });

  test('twenty organisations claiming one repository at once: exactly one wins', async () => {
    const store = createRepositoryOwnerStore(pool);
    const orgs = await Promise.all(Array.from({ length: 20 }, (_, i) => organisation(`race${i}`)));
    const r = repo();
    const results = await Promise.all(orgs.map((org) => store.claim(org, r, 'first-use')));
    expect(results.filter((x) => x.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((x) => x.kind === 'taken')).toHaveLength(19);
  });

  test('an organisation at its limit claims nothing more, also when claims race', async () => {
    const store = createRepositoryOwnerStore(pool, { maxPerOrganisation: 3 });
    const org = await organisation('limited');
    const results = await Promise.all(Array.from({ length: 6 }, () => store.claim(org, repo(), 'api')));
    expect(results.filter((x) => x.kind === 'claimed')).toHaveLength(3);
    expect(results.filter((x) => x.kind === 'limit_reached')).toEqual(
      Array.from({ length: 3 }, () => ({ kind: 'limit_reached', limit: 3 })),
    );
  });

  test('operators transfer and remove claims', async () => {
    const store = createRepositoryOwnerStore(pool);
    const [acme, globex] = [await organisation('acme'), await organisation('globex')];
    const r = repo();
    await store.claim(acme, r, 'operator');
    expect(await store.transfer(r, globex)).toBe(true);
    expect([await store.owns(acme, r), await store.owns(globex, r)]).toEqual([false, true]);
    expect(await store.remove(r)).toBe(true);
    expect(await store.remove(r)).toBe(false);
    expect(await store.claim(acme, r, 'api')).toEqual({ kind: 'claimed' });
  });
});

describe('the claim endpoints', () => {
  async function appWith(claims: ClaimPolicy) {
    const keys = createApiKeyStore(pool);
    const suffix = randomUUID().slice(0, 8);
    const acme = (await keys.create(`acme-${suffix}`)).key;
    const globex = (await keys.create(`globex-${suffix}`)).key;
    const { app } = await buildTestApp(pool, { keys, repositories: repositoryAccessOver(pool, { claims }) });
    const post = (url: string, body: object, key: string) =>
      app.inject({ method: 'POST', url, headers: { 'x-api-token': key }, payload: body });
    return { app, acme, globex, post };
  }

  test('first-use: createQueue claims an unclaimed repository; the claim endpoint answers 200, then 409 to others', async () => {
    const { app, acme, globex, post } = await appWith('first-use');
    const r = repo();
    expect((await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme)).statusCode).toBe(200);
    const again = await post('/v1/repositories/claim', { repo: r }, acme);
    expect([again.statusCode, again.json()]).toEqual([200, { repository: r, claimed: false }]);
    const theirs = await post('/v1/repositories/claim', { repo: r }, globex);
    expect([theirs.statusCode, theirs.body]).toEqual([
      409,
      `Repository github.com/acme/${r.name} is already claimed by another organisation; ask your railyard operator to transfer it.`,
    ]);
    const listed = await app.inject({
      method: 'GET',
      url: '/v1/repositories',
      headers: { 'x-api-token': acme },
    });
    expect(listed.json()).toEqual({
      repositories: [
        {
          ...r,
          claimed_at: expect.stringMatching(/^\d{4}-/),
          public_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      ],
    });
    await app.close();
  });

  test('api: createQueue on an unclaimed repository is a 404 until the repository is claimed', async () => {
    const { app, acme, post } = await appWith('api');
    const r = repo();
    const refused = await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme);
    expect([refused.statusCode, refused.body]).toEqual([
      404,
      `Repository github.com/acme/${r.name} is not one of your organisation's repositories; claim it with POST /v1/repositories/claim or ask your railyard operator.`,
    ]);
    const claimed = await post('/v1/repositories/claim', { repo: r }, acme);
    expect([claimed.statusCode, claimed.json()]).toEqual([200, { repository: r, claimed: true }]);
    expect((await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme)).statusCode).toBe(200);
    await app.close();
  });

  test('operator: the claim endpoint is a 403 and only an operator claim opens the repository', async () => {
    const { app, acme, post } = await appWith('operator');
    const r = repo();
    const refused = await post('/v1/repositories/claim', { repo: r }, acme);
    expect([refused.statusCode, refused.body]).toEqual([
      403,
      'Repositories are claimed by the operator on this server (npm run repos -- add); ask your railyard operator.',
    ]);
    expect((await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme)).statusCode).toBe(404);
    const { rows } = await pool.query<{ organisation_id: string }>(
      'SELECT organisation_id FROM api_keys WHERE prefix = $1',
      [acme.slice(0, 11)],
    );
    await createRepositoryOwnerStore(pool).claim(rows[0]!.organisation_id, r, 'operator');
    expect((await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme)).statusCode).toBe(200);
    await app.close();
  });

  test('metrics list only queues of repositories the organisation owns', async () => {
    const { app, acme, globex, post } = await appWith('first-use');
    const r = repo();
    expect((await post('/v1/createQueue', { repo: r, targetBranch: 'main' }, acme)).statusCode).toBe(200);
    // A queue the other organisation made before repositories had owners (listed, never owned).
    const { rows } = await pool.query<{ organisation_id: string }>(
      'SELECT organisation_id FROM api_keys WHERE prefix = $1',
      [globex.slice(0, 11)],
    );
    await pool.query(
      `INSERT INTO event_log_queues (organisation_id, host, owner, name, target_branch) VALUES ($1, $2, $3, $4, 'main')`,
      [rows[0]!.organisation_id, r.host, r.owner, r.name],
    );
    const metrics = (key: string, query = '') =>
      app.inject({ method: 'GET', url: `/v1/getMergeQueueMetrics${query}`, headers: { 'x-api-token': key } });
    expect((await metrics(acme)).body).toContain(`repo="acme/${r.name}"`);
    expect((await metrics(globex)).body).not.toContain(r.name);
    const named = await metrics(globex, `?repo=acme/${r.name}&repoHost=github.com`);
    expect([named.statusCode, named.body]).toEqual([
      404,
      `Repository github.com/acme/${r.name} was not found.`,
    ]);
    await app.close();
  });
});

describe('the worker’s second check, with real git', () => {
  test('a queue of another organisation neither builds a test branch in nor lands on the repository', async () => {
    const fx = await createRepoWithMain();
    try {
      const [acme, globex] = [await organisation('acme'), await organisation('globex')];
      await createRepositoryOwnerStore(pool).claim(acme, fx.repo, 'operator');
      const git = createGitActivities({ gitHost: fx.host, ownership: createRepositoryOwnerStore(pool) });
      fx.branchFrom('pr-78', 'origin/main');
      const head = fx.commit('PR 78', { 'evil.txt': 'globex\n' });
      fx.pushPr(78, head);
      const mainBefore = fx.tip('main');
      const prs = [{ number: 78, headSha: head }];
      // A direct merge of PR 78 on main's tip, as the queue of `organisationId` would ask for it.
      const directMerge = (organisationId: string) =>
        git.land({
          organisationId,
          repo: fx.repo,
          targetBranch: 'main',
          via: 'direct',
          testedSha: null,
          expectedTipSha: mainBefore,
          prs,
          mergeMethod: 'merge_commit',
          mergeId: randomUUID(),
        });

      const built = await git.buildTestRun({
        organisationId: globex,
        repo: fx.repo,
        targetBranch: 'main',
        runId: randomUUID(),
        branchPr: 78,
        buildOnSha: null,
        prs,
        mergeMethod: 'merge_commit',
      });
      expect(built).toEqual({
        kind: 'no_target',
        detail: `Repository ${fx.repo.host}/${fx.repo.owner}/${fx.repo.name} does not belong to this queue's organisation; nothing was written to it.`,
      });
      const landed = await directMerge(globex);
      expect(landed).toMatchObject({ kind: 'rejected', reason: 'GITHUB_API_MERGE_PR_FAILED' });
      expect(fx.tip('main')).toBe(mainBefore);
      expect(fx.bareGit('for-each-ref', '--format=%(refname)', 'refs/heads/railyard-merge')).toBe('');

      // The owner's queue lands the same PR: the check is the only difference.
      const own = await directMerge(acme);
      expect(own.kind).toBe('landed');
      expect(fx.tip('main')).not.toBe(mainBefore);
    } finally {
      fx.cleanup();
    }
  });
});
