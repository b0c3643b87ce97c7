/**
 * What GitHub says about an installation of the app: its account and suspension (App JWT,
 * `GET /app/installations/{id}`) and the repositories it covers (installation token,
 * `GET /installation/repositories`, every page). Linking (scripts/github.ts, the API) and the
 * repository sync read these.
 *
 * Invariants: credentials travel only in the Authorization header; a failure is a GitHubAuthError
 * (app-auth.ts) naming the call and GitHub's status, never a credential; an installation GitHub does
 * not know is `null`, not an error.
 */
import type { GitHubAppAuth } from './app-auth';
import { wrap } from './app-auth';

export interface InstallationFacts {
  installationId: number;
  /** The GitHub user or organisation the app is installed on. */
  accountLogin: string;
  suspendedAt: Date | null;
}

export interface CoveredRepository {
  owner: string;
  name: string;
}

export interface InstallationsApi {
  /** The installation, or null when this app has no such installation. */
  getInstallation(installationId: number): Promise<InstallationFacts | null>;
  /** Every repository the installation covers (it may have been given all or only some). */
  listRepositories(installationId: number): Promise<CoveredRepository[]>;
}

/** Repositories past this are not listed; GitHub allows far fewer per installation in practice. */
const MAX_PAGES = 1_000;

export async function createInstallationsApi(
  settings: { apiUrl: string },
  auth: GitHubAppAuth,
): Promise<InstallationsApi> {
  const { request: base } = await import('@octokit/request');
  const request = base.defaults({ baseUrl: settings.apiUrl, headers: { 'user-agent': 'railyard' } });
  return {
    async getInstallation(installationId) {
      const authorization = await auth.appAuthorization();
      try {
        const { data } = await request('GET /app/installations/{installation_id}', {
          installation_id: installationId,
          headers: { authorization },
        });
        const login = data.account && 'login' in data.account ? data.account.login : undefined;
        return {
          installationId: data.id,
          accountLogin: login ?? (data.account as { slug?: string } | null)?.slug ?? '',
          suspendedAt: data.suspended_at ? new Date(data.suspended_at) : null,
        };
      } catch (err) {
        if ((err as { status?: unknown }).status === 404) return null;
        throw wrap(err, `Could not read GitHub App installation ${installationId}`);
      }
    },

    async listRepositories(installationId) {
      const repos: CoveredRepository[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const token = await auth.installationToken(installationId);
        let data: { total_count: number; repositories: { name: string; owner: { login: string } }[] };
        try {
          ({ data } = await request('GET /installation/repositories', {
            per_page: 100,
            page,
            headers: { authorization: token.authorization() },
          }));
        } catch (err) {
          if ((err as { status?: unknown }).status === 401) auth.forget(installationId);
          throw wrap(err, `Could not list the repositories of GitHub App installation ${installationId}`);
        }
        for (const r of data.repositories) repos.push({ owner: r.owner.login, name: r.name });
        if (data.repositories.length < 100 || repos.length >= data.total_count) break;
      }
      return repos;
    },
  };
}
