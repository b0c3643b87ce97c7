/**
 * Linking a GitHub App installation to an organisation, shared by `npm run github -- link` and
 * `POST /v1/github/installations/link` (docs/adr/0008-github-installations.md).
 *
 * Steps: ask GitHub for the installation (it must exist for this app and not be suspended), link it
 * unless another organisation has it, then list its repositories and record them as the
 * organisation's. Linking again is harmless and lists the repositories again, which is how a failed
 * listing is retried.
 */
import type {
  GitHubInstallation,
  GitHubInstallationStore,
  LinkSource,
  SyncResult,
} from '../store/installations';
import { GitHubAuthError } from './app-auth';
import type { InstallationsApi } from './installations-api';

export interface LinkingDeps {
  store: GitHubInstallationStore;
  github: InstallationsApi;
  /** repo.host of the app's repositories. */
  host: string;
}

export type LinkOutcome =
  | {
      kind: 'linked' | 'already_yours';
      installation: GitHubInstallation;
      /** null when GitHub could not list the repositories; `listingError` says why. */
      sync: SyncResult | null;
      listingError?: string;
    }
  | { kind: 'taken' }
  | { kind: 'not_found' }
  | { kind: 'suspended'; suspendedAt: Date };

/** Throws GitHubAuthError when GitHub cannot be asked about the installation. */
export async function linkInstallation(
  deps: LinkingDeps,
  organisationId: string,
  installationId: number,
  source: LinkSource,
): Promise<LinkOutcome> {
  const facts = await deps.github.getInstallation(installationId);
  if (facts === null) return { kind: 'not_found' };
  if (facts.suspendedAt !== null) return { kind: 'suspended', suspendedAt: facts.suspendedAt };
  const linked = await deps.store.link(organisationId, { ...facts, host: deps.host }, source);
  if (linked.kind === 'taken') return linked;
  let sync: SyncResult | null = null;
  let listingError: string | undefined;
  try {
    sync = await deps.store.syncRepositories(
      installationId,
      await deps.github.listRepositories(installationId),
    );
  } catch (err) {
    if (!(err instanceof GitHubAuthError)) throw err;
    listingError = err.message;
  }
  const installation = await deps.store.find(installationId);
  // Unlinked by an operator in between: report it as taken rather than half-linked.
  if (installation === null || installation.organisationId !== organisationId) return { kind: 'taken' };
  return { kind: linked.kind, installation, sync, ...(listingError === undefined ? {} : { listingError }) };
}
