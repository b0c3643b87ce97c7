/**
 * fakehub's people: user access tokens of the App (`ghu_…`, GitHub's "user-to-server" tokens, got
 * through the App's OAuth web flow), organisation roles, and the REST operations a person's token
 * reaches: `GET /user`, `GET /user/installations`, `GET /user/memberships/orgs/{org}`. Also the two
 * installation reads railyard makes when it links one: `GET /app/installations/{id}` (App JWT) and
 * `GET /installation/repositories` (installation token). rest.ts spreads these handlers into its own.
 *
 * Rules, as GitHub:
 * - The OAuth web flow: a test stands for the person clicking "Authorize" (`authorize(login)` gives
 *   the `code` GitHub puts on the redirect); `POST /login/oauth/access_token` (on the web host, not
 *   the REST API, so outside the contract) trades a code once, within ten minutes, for a user token,
 *   given the App's client id and secret. A bad, used or expired code answers 200 with
 *   `error: bad_verification_code`, as GitHub does; a wrong client secret `incorrect_client_credentials`.
 * - `GET /user/installations` lists the App's installations the person can reach: those on their own
 *   account and those of organisations they belong to (any role). Being listed there is not being an
 *   administrator: `GET /user/memberships/orgs/{org}` says the role (`admin` or `member`); 404 when
 *   the person is not a member.
 * - User tokens live in memory only and never appear in a record or a violation.
 */
import { randomBytes } from 'node:crypto';
import type { FakeApp } from './app-auth';
import { installationJson, repositoryJson, userJson } from './payloads';
import type { RestAnswer, RestContext, RestRequest } from './rest';
import type { FakeHubState } from './state';

export type OrgRole = 'admin' | 'member';

export interface FakeHubUsers {
  /** `login`'s role in organisation `org` (null: not a member). */
  setOrgRole(org: string, login: string, role: OrgRole | null): void;
  /** The `code` GitHub puts on the OAuth redirect after `login` authorised the App. */
  authorize(login: string): string;
  /** A user token of `login` without the web flow (for tests not about the flow). */
  token(login: string): string;
  /** The login of a live user token, or null. */
  loginOf(token: string): string | null;
  /** Every user token issued so far, for tests that scan output for leaks. */
  issued(): string[];
  /** `POST /login/oauth/access_token`: the JSON body GitHub answers (always status 200). */
  exchange(form: Record<string, string | undefined>): Record<string, string>;
}

const CODE_LIFETIME_MS = 10 * 60_000;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const secret = (prefix: string) =>
  `${prefix}${Array.from(randomBytes(36), (b) => ALPHABET[b % ALPHABET.length]).join('')}`;

/** The users and their organisation roles, as the REST handlers read them. */
export type FakeHubUserStore = FakeHubUsers & { roles: Map<string, Map<string, OrgRole>> };

export function createUsers(app: FakeApp): FakeHubUserStore {
  const roles = new Map<string, Map<string, OrgRole>>();
  const tokens = new Map<string, string>();
  const codes = new Map<string, { login: string; expiresAt: number }>();
  const mint = (login: string) => {
    const token = secret('ghu_');
    tokens.set(token, login);
    return token;
  };
  return {
    roles,
    setOrgRole(org, login, role) {
      const members = roles.get(org.toLowerCase()) ?? new Map<string, OrgRole>();
      roles.set(org.toLowerCase(), members);
      if (role === null) members.delete(login.toLowerCase());
      else members.set(login.toLowerCase(), role);
    },
    authorize(login) {
      const code = randomBytes(10).toString('hex');
      codes.set(code, { login, expiresAt: Date.now() + CODE_LIFETIME_MS });
      return code;
    },
    token: mint,
    loginOf: (token) => tokens.get(token) ?? null,
    issued: () => [...tokens.keys()],
    exchange(form): Record<string, string> {
      if (form.client_id !== app.clientId || form.client_secret !== app.clientSecret)
        return {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        };
      const held = form.code ? codes.get(form.code) : undefined;
      if (form.code) codes.delete(form.code);
      if (!held || held.expiresAt < Date.now())
        return {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        };
      return { access_token: mint(held.login), token_type: 'bearer', scope: '' };
    },
  };
}

type Handler = (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>;

const DOCS = 'https://docs.github.com/rest';
const notFound = (): RestAnswer => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: DOCS, status: '404' },
});
const EPOCH = '2020-01-01T00:00:00Z';

function roleOf(ctx: RestContext, org: string, login: string): OrgRole | null {
  return ctx.users.roles.get(org.toLowerCase())?.get(login.toLowerCase()) ?? null;
}

/** The App's installations `login` reaches: on their account, or of an organisation they belong to. */
function reachable(state: FakeHubState, ctx: RestContext, login: string) {
  return [...state.installations.values()].filter((i) =>
    i.accountType === 'User'
      ? i.account.toLowerCase() === login.toLowerCase()
      : roleOf(ctx, i.account, login) !== null,
  );
}

function organizationJson(base: string, login: string) {
  const user = userJson(base, login, 'Organization');
  const url = `${base}/orgs/${encodeURIComponent(login)}`;
  return {
    login,
    id: user.id,
    node_id: user.node_id,
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: user.avatar_url,
    description: null,
  };
}

const page = (req: RestRequest) => ({
  perPage: Math.min(Math.max(Number(req.query.get('per_page') ?? 30), 1), 100),
  page: Math.max(Number(req.query.get('page') ?? 1), 1),
});

export const userHandlers: Record<string, Handler> = {
  'users/get-authenticated': (ctx, req) => {
    const login = req.userLogin!;
    return Promise.resolve({
      status: 200,
      body: {
        ...userJson(ctx.base, login),
        user_view_type: 'public',
        name: null,
        company: null,
        blog: null,
        location: null,
        email: null,
        hireable: null,
        bio: null,
        public_repos: 0,
        public_gists: 0,
        followers: 0,
        following: 0,
        created_at: EPOCH,
        updated_at: EPOCH,
      },
    });
  },

  'apps/list-installations-for-authenticated-user': (ctx, req) => {
    const all = reachable(ctx.state, ctx, req.userLogin!);
    const { perPage, page: n } = page(req);
    return Promise.resolve({
      status: 200,
      body: {
        total_count: all.length,
        installations: all
          .slice((n - 1) * perPage, n * perPage)
          .map((i) => installationJson(ctx.base, i, ctx.app.id, ctx.app.slug)),
      },
    });
  },

  'orgs/get-membership-for-authenticated-user': (ctx, req) => {
    const org = String(req.params.org);
    const role = roleOf(ctx, org, req.userLogin!);
    if (role === null) return Promise.resolve(notFound());
    return Promise.resolve({
      status: 200,
      body: {
        url: `${ctx.base}/orgs/${encodeURIComponent(org)}/memberships/${encodeURIComponent(req.userLogin!)}`,
        state: 'active',
        role,
        organization_url: `${ctx.base}/orgs/${encodeURIComponent(org)}`,
        organization: organizationJson(ctx.base, org),
        user: userJson(ctx.base, req.userLogin!),
      },
    });
  },

  'apps/get-installation': (ctx, req) => {
    const installation = ctx.state.installations.get(Number(req.params.installation_id));
    if (!installation) return Promise.resolve(notFound());
    return Promise.resolve({
      status: 200,
      body: installationJson(ctx.base, installation, ctx.app.id, ctx.app.slug),
    });
  },

  'apps/list-repos-accessible-to-installation': (ctx, req) => {
    const all = [...ctx.state.repositories.values()].filter((r) => r.installationId === req.installationId);
    const { perPage, page: n } = page(req);
    return Promise.resolve({
      status: 200,
      body: {
        total_count: all.length,
        repository_selection: 'selected',
        repositories: all.slice((n - 1) * perPage, n * perPage).map((r) => {
          const owner = ctx.state.installations.get(r.installationId)?.accountType ?? 'Organization';
          return repositoryJson(ctx.base, r, owner);
        }),
      },
    });
  },
};
