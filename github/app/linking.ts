/**
 * Linking a GitHub App installation to an organisation, shared by `npm run github -- link`,
 * `POST /v1/github/installations/link` and the dashboard (docs/adr/0008-github-installations.md,
 * docs/adr/0015-installation-linking-proof.md).
 *
 * Steps: ask GitHub for the installation (it must exist for this app and not be suspended), link it
 * unless another organisation has it, then list its repositories and record them as the
 * organisation's. Linking again is harmless and lists the repositories again, which is how a failed
 * listing is retried.
 *
 * The operator's link (`linkInstallation`, trusted) needs nothing more. An organisation's
 * (`linkWithProof`) needs a GitHub user token of someone who administers the installation's account,
 * unless the installation is already the organisation's (then it only lists the repositories again).
 * Its refusals never tell an unknown id, another organisation's installation and one the person does
 * not administer apart (`not_linkable`), and nothing about an id is asked of GitHub before the proof.
 */
import type {
  GitHubInstallation,
  GitHubInstallationStore,
  LinkSource,
  SyncResult,
} from '../store/installations';
import { GitHubAuthError } from './app-auth';
import type { InstallationsApi } from './installations-api';
import type { UserProof } from './user-proof';

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

export interface ProvenLinkingDeps extends LinkingDeps {
  proof: UserProof;
}

export type ProvenLinkOutcome =
  | Extract<LinkOutcome, { kind: 'linked' | 'already_yours' | 'suspended' }>
  /** Not the caller's installation, and no user token came to prove it may become theirs. */
  | { kind: 'proof_needed' }
  /** GitHub does not accept the user token. */
  | { kind: 'token_refused' }
  /** Unknown, another organisation's, or not administered by the token's person: one answer. */
  | { kind: 'not_linkable' };

/** An organisation links an installation; throws GitHubAuthError when GitHub cannot be asked. */
export async function linkWithProof(
  deps: ProvenLinkingDeps,
  organisationId: string,
  installationId: number,
  userToken: string | null,
): Promise<ProvenLinkOutcome & { provenBy?: string }> {
  const current = await deps.store.find(installationId);
  if (current?.organisationId === organisationId)
    return mapped(await linkInstallation(deps, organisationId, installationId, 'api'));
  if (userToken === null) return { kind: 'proof_needed' };
  const proof = await deps.proof.administers(userToken, installationId);
  switch (proof.kind) {
    case 'token_refused':
      return proof;
    case 'not_shown':
      return { kind: 'not_linkable' };
    case 'administers':
      return {
        ...mapped(await linkInstallation(deps, organisationId, installationId, 'api')),
        provenBy: proof.userLogin,
      };
  }
}

function mapped(outcome: LinkOutcome): ProvenLinkOutcome {
  switch (outcome.kind) {
    case 'not_found':
    case 'taken':
      return { kind: 'not_linkable' };
    case 'suspended':
    case 'linked':
    case 'already_yours':
      return outcome;
  }
}
