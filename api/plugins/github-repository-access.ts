/**
 * Repository access while a GitHub App is configured (docs/adr/0008-github-installations.md): a
 * repository of the app's host belongs to the organisation whose linked installation covers it. This
 * wraps the claim-based access of plugins/repository-access.ts; every other host is left to it.
 *
 * Rules for a repository of the GitHub host:
 * - A request acts on it only when an installation linked to the caller's organisation covers it;
 *   otherwise the answer is a 404 saying so, the same whether another organisation owns it or nobody
 *   does, so a key cannot tell the two apart.
 * - First use never claims it, and `POST /v1/repositories/claim` answers 403 (200 when it is already
 *   the caller's through an installation): only linking an installation confers it.
 */
import type { Pool } from '../../stores/db';
import { installationOwnership, isGitHubRepository } from '../../github/store/installations';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import type { RepositoryOwnership } from '../../stores/repository-owners';
import { forbidden, notFound } from '../errors';
import { repositoryAccessOver, type ClaimPolicy, type RepositoryAccess } from './repository-access';

export const repositoryNotCovered = (repo: RepositoryKey) =>
  notFound(
    `No GitHub App installation linked to your organisation covers ${repositoryLabel(repo)}; install the app on the repository and link the installation (POST /v1/github/installations/link).`,
  );

const claimedThroughInstallations = (repo: RepositoryKey) =>
  forbidden(
    `Repositories on ${repo.host} belong to the organisation whose GitHub App installation covers them; link the installation with POST /v1/github/installations/link instead of claiming ${repositoryLabel(repo)}.`,
  );

export function withGitHubInstallations(
  inner: RepositoryAccess,
  gitHub: { host: string; ownership: RepositoryOwnership },
): RepositoryAccess {
  const covered = async (organisationId: string, repo: RepositoryKey) => {
    if (!(await gitHub.ownership.owns(organisationId, repo))) throw repositoryNotCovered(repo);
  };
  return {
    claims: inner.claims,
    require: (org, repo, missing) =>
      isGitHubRepository(repo, gitHub.host) ? covered(org.id, repo) : inner.require(org, repo, missing),
    async use(org, repo) {
      if (!isGitHubRepository(repo, gitHub.host)) return inner.use(org, repo);
      await covered(org.id, repo);
      return 'owned';
    },
    // Installations, not claims, own GitHub repositories: nothing to release there.
    release: (org, repo) =>
      isGitHubRepository(repo, gitHub.host) ? Promise.resolve() : inner.release(org, repo),
    async claim(org, repo) {
      if (!isGitHubRepository(repo, gitHub.host)) return inner.claim(org, repo);
      if (await gitHub.ownership.owns(org.id, repo)) return { kind: 'already_yours' };
      throw claimedThroughInstallations(repo);
    },
  };
}

/** repositoryAccessOver, with the GitHub rule on top when an app serves `gitHubHost`. */
export function repositoryAccessWithGitHub(
  pool: Pool,
  opts: { claims?: ClaimPolicy; maxPerOrganisation?: number; gitHubHost?: string | undefined },
): ReturnType<typeof repositoryAccessOver> {
  const { gitHubHost, ...rest } = opts;
  const over = repositoryAccessOver(pool, rest);
  if (gitHubHost === undefined) return over;
  const ownership = installationOwnership(pool, gitHubHost, over.owners);
  return {
    owners: over.owners,
    access: withGitHubInstallations(over.access, { host: gitHubHost, ownership }),
  };
}
