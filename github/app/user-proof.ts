/**
 * Proof that a person administers the GitHub account an installation of the app is on
 * (docs/adr/0015-installation-linking-proof.md). The person authorises the app on GitHub (its OAuth
 * web flow) and railyard gets a **user access token** of the app for them; with it:
 *
 *   1. `GET /user`: who the person is;
 *   2. `GET /user/installations`: the app's installations they can reach (every page);
 *   3. for an organisation's installation, `GET /user/memberships/orgs/{org}`: an active `admin`;
 *      for a user's installation, the account must be the person's own.
 *
 * Being listed by (2) is not enough: a collaborator on one repository, or any member of the
 * organisation, sees the installation there too. Only an owner of the organisation, or the user
 * themselves, proves control of the account.
 *
 * Invariants: the user token and the client secret travel only in the Authorization header or the
 * token exchange's body; they never reach a message, a log or the database. A code or token GitHub
 * refuses is an answer (`null`, `token_refused`), not an error; any other failure is a GitHubAuthError
 * naming the call and GitHub's status.
 */
import type { GitHubOAuthSettings } from './config';
import { GitHubAuthError, wrap } from './app-auth';

export type UserProofResult =
  | { kind: 'administers'; userLogin: string; accountLogin: string }
  /** The person cannot reach the installation, or does not administer its account. */
  | { kind: 'not_shown' }
  /** GitHub does not accept the user token (unknown, expired, revoked, or not this app's). */
  | { kind: 'token_refused' };

export interface UserProof {
  administers(userToken: string, installationId: number): Promise<UserProofResult>;
}

/** The OAuth web flow's last step (needs the app's client id and secret). */
export interface CodeExchange {
  /** The user token for the code of GitHub's OAuth redirect; null when GitHub refuses the code. */
  exchangeCode(code: string): Promise<string | null>;
  /** Where to send the person: GitHub's page that asks them to authorise the app, then redirects back. */
  authorizeUrl(state: string): string;
}

/** Installations listed past this are not looked at (100 a page). */
const MAX_PAGES = 10;

interface ListedInstallation {
  id: number;
  target_type?: string;
  account: { login?: string; slug?: string; type?: string } | null;
}

const statusOf = (err: unknown) => (err as { status?: unknown }).status;

export function createCodeExchange(settings: GitHubOAuthSettings): CodeExchange {
  return {
    authorizeUrl: (state) =>
      `${settings.webUrl}/login/oauth/authorize?${new URLSearchParams({ client_id: settings.clientId, state }).toString()}`,

    async exchangeCode(code) {
      let answer: Response;
      try {
        answer = await fetch(`${settings.webUrl}/login/oauth/access_token`, {
          method: 'POST',
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            'user-agent': 'railyard',
          },
          body: JSON.stringify({
            client_id: settings.clientId,
            client_secret: settings.clientSecret,
            code,
          }),
          signal: AbortSignal.timeout(15_000),
        });
      } catch (err) {
        throw new GitHubAuthError(
          `Could not exchange the GitHub authorisation code: ${(err as Error).name === 'TimeoutError' ? 'GitHub did not answer in time' : 'GitHub could not be reached'}.`,
        );
      }
      if (!answer.ok)
        throw new GitHubAuthError(
          `Could not exchange the GitHub authorisation code: GitHub answered ${answer.status}.`,
        );
      const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
      if (body.error === 'incorrect_client_credentials')
        throw new GitHubAuthError(
          'Could not exchange the GitHub authorisation code: GitHub refused the client id or secret (RAILYARD_GITHUB_CLIENT_ID, RAILYARD_GITHUB_CLIENT_SECRET).',
        );
      return typeof body.access_token === 'string' && body.access_token !== '' ? body.access_token : null;
    },
  };
}

export async function createUserProof(settings: { apiUrl: string }): Promise<UserProof> {
  const { request: base } = await import('@octokit/request');
  const request = base.defaults({ baseUrl: settings.apiUrl, headers: { 'user-agent': 'railyard' } });
  return {
    async administers(userToken, installationId) {
      const headers = { authorization: `Bearer ${userToken}` };
      let userLogin: string;
      try {
        userLogin = (await request('GET /user', { headers })).data.login;
      } catch (err) {
        if (statusOf(err) === 401 || statusOf(err) === 403) return { kind: 'token_refused' };
        throw wrap(err, 'Could not read the GitHub user of the token');
      }

      let found: ListedInstallation | undefined;
      for (let page = 1; page <= MAX_PAGES && !found; page++) {
        let listed: { total_count: number; installations: ListedInstallation[] };
        try {
          ({ data: listed } = await request('GET /user/installations', { per_page: 100, page, headers }));
        } catch (err) {
          if (statusOf(err) === 401 || statusOf(err) === 403) return { kind: 'token_refused' };
          throw wrap(err, "Could not list the GitHub user's installations");
        }
        found = listed.installations.find((i) => i.id === installationId);
        if (listed.installations.length < 100 || page * 100 >= listed.total_count) break;
      }
      const accountLogin = found?.account?.login ?? found?.account?.slug;
      if (!found || !accountLogin) return { kind: 'not_shown' };

      if ((found.target_type ?? found.account?.type) !== 'Organization')
        return accountLogin.toLowerCase() === userLogin.toLowerCase()
          ? { kind: 'administers', userLogin, accountLogin }
          : { kind: 'not_shown' };
      try {
        const { data } = await request('GET /user/memberships/orgs/{org}', { org: accountLogin, headers });
        return data.state === 'active' && data.role === 'admin'
          ? { kind: 'administers', userLogin, accountLogin }
          : { kind: 'not_shown' };
      } catch (err) {
        // 404: not a member; 403: the organisation blocks the app or its membership is hidden from it.
        if (statusOf(err) === 404 || statusOf(err) === 403) return { kind: 'not_shown' };
        if (statusOf(err) === 401) return { kind: 'token_refused' };
        throw wrap(err, "Could not read the GitHub user's organisation membership");
      }
    },
  };
}
