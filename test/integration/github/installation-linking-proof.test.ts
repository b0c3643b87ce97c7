/**
 * Linking a GitHub App installation needs proof (docs/adr/0015-installation-linking-proof.md), on the
 * real PostgreSQL and the contract-checked fakehub: the linking race (an organisation cannot link
 * another's installation, however it asks), one answer for unknown, taken and not administered ids
 * (and no GitHub call about an id before the proof), an organisation member who is no owner proves
 * nothing, and the dashboard's OAuth flow, whose state is one-use and bound to the session that asked:
 * replayed, forged, another session's or mismatched states are refused and link nothing.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Pool } from 'pg';
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createInstallationsApi } from '../../../github/app/installations-api';
import { createCodeExchange, createUserProof } from '../../../github/app/user-proof';
import { createGitHubInstallationStore } from '../../../github/store/installations';
import { createLinkStateStore } from '../../../github/store/link-states';
import { createUiSessionStore } from '../../../api/dashboard/store/sessions';
import { repositoryAccessWithGitHub } from '../../../api/plugins/github-repository-access';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, type CapturedLog } from '../../support/app';
import { useFakeHub } from '../../support/fakehub';
import { createMigratedDatabase } from '../../support/postgres';

const hub = useFakeHub();
let pool: Pool;
let app: FastifyInstance;
let log: CapturedLog;
let acme: string;
let globex: string;
const installations = () => createGitHubInstallationStore(pool);

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('github_linking_proof'));
  const keys = createApiKeyStore(pool);
  const suffix = randomUUID().slice(0, 8);
  acme = (await keys.create(`acme-${suffix}`)).key;
  globex = (await keys.create(`globex-${suffix}`)).key;
  const settings = { appId: hub().app.id, privateKey: hub().app.privateKey, apiUrl: hub().url };
  ({ app, log } = await buildTestApp(pool, {
    keys,
    repositories: repositoryAccessWithGitHub(pool, { claims: 'first-use', gitHubHost: 'github.com' }),
    ui: { sessions: createUiSessionStore(pool), pool },
    gitHubInstallations: {
      store: installations(),
      github: await createInstallationsApi(settings, await createGitHubAppAuth(settings)),
      host: 'github.com',
      proof: await createUserProof({ apiUrl: hub().url }),
      oauth: {
        exchange: createCodeExchange({
          clientId: hub().app.clientId,
          clientSecret: hub().app.clientSecret,
          webUrl: hub().url,
        }),
        states: createLinkStateStore(pool),
      },
    },
  }));
});
afterAll(async () => {
  await app?.close();
  await pool?.end();
});

let nextAccount = 0;
/** An organisation account on GitHub with the app installed on it (repositories `app`, `lib`). */
async function githubOrganisation(admin: string, members: string[] = []) {
  const account = `gh-org-${++nextAccount}-${randomUUID().slice(0, 6)}`;
  const installation = hub().createInstallation({ account });
  for (const name of ['app', 'lib'])
    await hub().createRepository({ installationId: installation.id, owner: account, name });
  hub().users.setOrgRole(account, admin, 'admin');
  for (const m of members) hub().users.setOrgRole(account, m, 'member');
  return { id: installation.id, account };
}

const link = (key: string, body: { installation_id: number; github_user_token?: string }) =>
  app.inject({
    method: 'POST',
    url: '/v1/github/installations/link',
    headers: { 'x-api-token': key },
    payload: body,
  });

/** The answer with the installation id written as N, to compare answers about different ids. */
const answer = (res: LightMyRequestResponse, id: number) => [
  res.statusCode,
  res.body.replaceAll(String(id), 'N'),
];

/** GitHub calls railyard made about installation `id` since request number `since`. */
const askedAbout = (id: number, since: number) =>
  hub()
    .requests.slice(since)
    .filter((r) => r.path.includes(`/installations/${id}`));

describe('the linking API', () => {
  test('without proof, no installation that is not yours links, and every id gets the same answer', async () => {
    const mine = await githubOrganisation('alice');
    const linked = await link(acme, {
      installation_id: mine.id,
      github_user_token: hub().users.token('alice'),
    });
    expect(linked.statusCode).toBe(200);
    const unlinked = await githubOrganisation('carol');
    const unknown = 987_654_321;

    const since = hub().requests.length;
    const answers = [mine.id, unlinked.id, unknown].map(async (id) =>
      answer(await link(globex, { installation_id: id }), id),
    );
    const [taken, foreign, missing] = await Promise.all(answers);
    expect(taken).toEqual([
      403,
      "Linking GitHub App installation N needs proof that you administer its GitHub account: send github_user_token (a user access token of this server's GitHub App), or link it from the dashboard (/ui/github).",
    ]);
    expect(foreign).toEqual(taken);
    expect(missing).toEqual(taken);
    // Nothing about the ids was asked of GitHub, so even timing tells nothing.
    expect(hub().requests.slice(since)).toEqual([]);
    expect(await installations().find(unlinked.id)).toBeNull();
    expect((await installations().find(mine.id))?.organisationSlug).toMatch(/^acme-/);
  });

  test("the linking race: with its own person's token, an organisation cannot link another's installation", async () => {
    const target = await githubOrganisation('alice2', ['mallory']);
    const mallory = hub().users.token('mallory');
    // A member who is no owner sees the installation on GitHub but proves nothing.
    const member = await link(globex, { installation_id: target.id, github_user_token: mallory });
    const unknownId = 987_654_322;
    const unknown = await link(globex, { installation_id: unknownId, github_user_token: mallory });
    const notOrg = hub().createInstallation({
      account: `someone-${randomUUID().slice(0, 6)}`,
      accountType: 'User',
    });
    const someoneElses = await link(globex, { installation_id: notOrg.id, github_user_token: mallory });
    expect(answer(member, target.id)).toEqual([
      404,
      "GitHub App installation N cannot be linked: it is not an installation of this server's app whose GitHub account your GitHub user administers, or another organisation has linked it (then ask your railyard operator).",
    ]);
    expect(answer(unknown, unknownId)).toEqual(answer(member, target.id));
    expect(answer(someoneElses, notOrg.id)).toEqual(answer(member, target.id));
    // An unknown id is never looked up on GitHub with the App's credentials: the proof fails first.
    expect(hub().requests.filter((r) => r.path.includes(`/installations/${unknownId}`))).toEqual([]);

    // The owner links it; afterwards even a person who administers the account cannot move it.
    const since = hub().requests.length;
    const owner = await link(acme, {
      installation_id: target.id,
      github_user_token: hub().users.token('alice2'),
    });
    expect([owner.statusCode, owner.json()]).toMatchObject([
      200,
      {
        linked: true,
        installation: { account_login: target.account },
        repositories: { covered: 2, added: 2 },
      },
    ]);
    // Only after the proof does railyard ask GitHub (App JWT) about the installation, then list it.
    expect(askedAbout(target.id, since).map((r) => r.operationId)).toEqual([
      'apps/get-installation',
      'apps/create-installation-access-token',
    ]);
    const taken = await link(globex, {
      installation_id: target.id,
      github_user_token: hub().users.token('alice2'),
    });
    expect(answer(taken, target.id)).toEqual(answer(member, target.id));
    expect((await installations().find(target.id))?.organisationSlug).toMatch(/^acme-/);
    // Already yours: listed again, no proof needed.
    const again = await link(acme, { installation_id: target.id });
    expect([again.statusCode, again.json()]).toMatchObject([200, { linked: false }]);
  });

  test("a user's own installation is linked by that user only; a refused token is a 400 naming the field", async () => {
    const login = `dev-${randomUUID().slice(0, 6)}`;
    const own = hub().createInstallation({ account: login, accountType: 'User' });
    await hub().createRepository({ installationId: own.id, owner: login, name: 'tool' });
    const stranger = await link(globex, {
      installation_id: own.id,
      github_user_token: hub().users.token('mallory'),
    });
    expect(stranger.statusCode).toBe(404);
    const refused = await link(globex, { installation_id: own.id, github_user_token: 'ghu_not-a-token' });
    expect([refused.statusCode, refused.body]).toEqual([
      400,
      "Field 'github_user_token' is not accepted by GitHub: it is unknown, expired or revoked, or not a user access token of this server's GitHub App.",
    ]);
    const self = await link(globex, { installation_id: own.id, github_user_token: hub().users.token(login) });
    expect([self.statusCode, self.json().repositories]).toMatchObject([200, { covered: 1 }]);
    for (const token of hub().users.issued()) expect(log.text()).not.toContain(token);
  });
});

describe('the dashboard flow', () => {
  async function signIn(key: string) {
    const form = await app.inject({ method: 'GET', url: '/ui/sign-in' });
    const nonce = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const signInCookie = form.cookies.find((c) => c.name.endsWith('railyard-sign-in'))!;
    const res = await app.inject({
      method: 'POST',
      url: '/ui/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      cookies: { [signInCookie.name]: signInCookie.value },
      payload: new URLSearchParams({ key, _csrf: nonce }).toString(),
    });
    const cookie = res.cookies.find((c) => c.name === 'railyard-session')!.value;
    const page = await app.inject({
      method: 'GET',
      url: '/ui/github',
      cookies: { 'railyard-session': cookie },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    return { cookie, csrf, page };
  }

  /** Asks to link `id` in the session; the state GitHub would carry back. */
  async function start(session: { cookie: string; csrf: string }, id: number) {
    const res = await app.inject({
      method: 'POST',
      url: '/ui/github/link',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      cookies: { 'railyard-session': session.cookie },
      payload: new URLSearchParams({ _csrf: session.csrf, installation_id: String(id) }).toString(),
    });
    expect(res.statusCode).toBe(200);
    const href = /data-testid="continue" href="([^"]+)"/.exec(res.body)![1]!.replaceAll('&amp;', '&');
    const url = new URL(href);
    expect(`${url.origin}${url.pathname}`).toBe(`${hub().url}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(hub().app.clientId);
    return url.searchParams.get('state')!;
  }

  /** GitHub's redirect back, after `login` authorised the app. */
  const callback = (cookie: string, query: Record<string, string>) =>
    app.inject({
      method: 'GET',
      url: `/ui/github/callback?${new URLSearchParams(query).toString()}`,
      cookies: { 'railyard-session': cookie },
    });

  const STATE_REFUSED =
    'This GitHub link request is unknown, already used, expired, or was started in another browser session; start again from the GitHub page of the dashboard.';

  test('an owner links through GitHub; the state works once, in its session, for its installation', async () => {
    const target = await githubOrganisation('erin', ['frank']);
    const session = await signIn(acme);
    expect(session.page.body).toContain('action="/ui/github/link"');

    // Forged, and another session's state: refused; the other session's state is spent by the attempt.
    const forged = await callback(session.cookie, {
      state: 'x'.repeat(43),
      code: hub().users.authorize('erin'),
    });
    expect([forged.statusCode, forged.body]).toEqual([400, expect.stringContaining(STATE_REFUSED)]);
    const theirs = await signIn(globex);
    const stolen = await start(theirs, target.id);
    const crossed = await callback(session.cookie, { state: stolen, code: hub().users.authorize('erin') });
    expect([crossed.statusCode, crossed.body]).toEqual([400, expect.stringContaining(STATE_REFUSED)]);
    const spent = await callback(theirs.cookie, { state: stolen, code: hub().users.authorize('erin') });
    expect(spent.statusCode).toBe(400);
    expect(await installations().find(target.id)).toBeNull();

    // A member's authorisation proves nothing: the one answer, and the state is spent.
    const byMember = await start(session, target.id);
    const member = await callback(session.cookie, { state: byMember, code: hub().users.authorize('frank') });
    expect(member.statusCode).toBe(404);
    expect(member.body).toContain('cannot be linked');
    // A redirect naming another installation than the state's is refused.
    const other = await githubOrganisation('erin');
    const mismatch = await start(session, target.id);
    const wrongId = await callback(session.cookie, {
      state: mismatch,
      code: hub().users.authorize('erin'),
      installation_id: String(other.id),
      setup_action: 'install',
    });
    expect(wrongId.statusCode).toBe(400);
    expect(await installations().find(other.id)).toBeNull();

    // The owner: linked (GitHub's redirect after a fresh install carries installation_id and setup_action).
    const state = await start(session, target.id);
    const done = await callback(session.cookie, {
      code: hub().users.authorize('erin'),
      installation_id: String(target.id),
      setup_action: 'install',
      state,
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain(
      `GitHub App installation ${target.id} (${target.account}) is linked: 2 repositories.`,
    );
    expect((await installations().find(target.id))?.organisationSlug).toMatch(/^acme-/);
    // Replayed, even with a fresh code: refused.
    const replay = await callback(session.cookie, { state, code: hub().users.authorize('erin') });
    expect([replay.statusCode, replay.body]).toEqual([400, expect.stringContaining(STATE_REFUSED)]);
    // A used code is refused by GitHub.
    const used = hub().users.authorize('erin');
    const again = await start(session, other.id);
    hub().users.exchange({
      client_id: hub().app.clientId,
      client_secret: hub().app.clientSecret,
      code: used,
    });
    const stale = await callback(session.cookie, { state: again, code: used });
    expect([stale.statusCode, stale.body]).toEqual([
      400,
      expect.stringContaining('GitHub refused the authorisation code (it is used or expired); start again.'),
    ]);

    const page = await app.inject({
      method: 'GET',
      url: '/ui/github',
      cookies: { 'railyard-session': session.cookie },
    });
    expect(page.body).toContain(target.account);
    expect(
      (await app.inject({ method: 'GET', url: '/ui/github', cookies: { 'railyard-session': theirs.cookie } }))
        .body,
    ).not.toContain(target.account);
    for (const token of hub().users.issued()) expect(log.text()).not.toContain(token);
    expect(log.text()).not.toContain(state);
  });
});
