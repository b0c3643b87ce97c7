/**
 * GitHub App installations of the caller's organisation (docs/adr/0008-github-installations.md,
 * docs/adr/0015-installation-linking-proof.md): `GET /v1/github/installations` lists them,
 * `POST /v1/github/installations/link` links one.
 *
 * Rules (an installation id is a small guessable number, and linking one gives its repositories):
 * - Under `RAILYARD_REPOSITORY_CLAIMS=operator` linking is the operator's (`npm run github -- link`): 403.
 * - Linking an installation that is not already the caller's needs proof: `github_user_token`, a user
 *   access token of this server's GitHub App whose person administers the installation's account
 *   (an owner of the organisation, or the user it is installed on). Without one: 403, the same for
 *   every id. The dashboard gets that token through GitHub's OAuth page (api/dashboard/routes/github.ts).
 * - With the token, an unknown id, another organisation's installation and one the person does not
 *   administer get one answer: the same 404 and sentence. GitHub is not asked about the id before
 *   the proof, so the answers tell nothing about ids the caller cannot prove.
 * - A suspended installation the person administers is a 409; one already the caller's is a 200 with
 *   `linked: false` that lists its repositories again (no proof needed: it is already theirs).
 * - An installation linked through the API never takes a repository from an organisation that claimed
 *   it before; those are reported in `repositories.owned_elsewhere` (only an operator's link moves them).
 * - A listing GitHub could not give is a 503 after the link is made; sending the link again retries it.
 * The user token is used for the proof and forgotten: never stored, logged or answered.
 * The listing shows only the caller's installations.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GitHubAuthError } from '../../../github/app/app-auth';
import { linkWithProof, type ProvenLinkingDeps } from '../../../github/app/linking';
import type { CodeExchange } from '../../../github/app/user-proof';
import type { GitHubInstallation, SyncResult } from '../../../github/store/installations';
import type { LinkStateStore } from '../../../github/store/link-states';
import { badRequest, conflict, forbidden, notFound, unavailable } from '../../errors';
import { organisationOf } from '../../plugins/request-context';

export interface GitHubInstallationApiDeps extends ProvenLinkingDeps {
  /** The dashboard's linking flow (GitHub's OAuth page); absent: no client id and secret configured. */
  oauth?: { exchange: CodeExchange; states: LinkStateStore };
}

export const OPERATOR_LINKS_ONLY =
  'GitHub App installations are linked by the operator on this server (npm run github -- link); ask your railyard operator.';

/** The one answer for an unknown, another organisation's, or a not administered installation. */
export const notLinkable = (id: number) =>
  notFound(
    `GitHub App installation ${id} cannot be linked: it is not an installation of this server's app whose GitHub account your GitHub user administers, or another organisation has linked it (then ask your railyard operator).`,
  );

export interface LinkedForOrganisation {
  kind: 'linked' | 'already_yours';
  installation: GitHubInstallation;
  sync: SyncResult;
  /** The GitHub user whose token proved the link; absent when it was already the organisation's. */
  provenBy?: string;
}

/**
 * Links for the organisation and maps every refusal to its answer (shared with the dashboard); the
 * outcome is one of the linked kinds.
 */
export async function linkForOrganisation(
  deps: ProvenLinkingDeps,
  organisationId: string,
  id: number,
  userToken: string | null,
): Promise<LinkedForOrganisation> {
  let outcome;
  try {
    outcome = await linkWithProof(deps, organisationId, id, userToken);
  } catch (err) {
    if (err instanceof GitHubAuthError) throw unavailable(`${err.message} Try again later.`);
    throw err;
  }
  switch (outcome.kind) {
    case 'proof_needed':
      throw forbidden(
        `Linking GitHub App installation ${id} needs proof that you administer its GitHub account: send github_user_token (a user access token of this server's GitHub App), or link it from the dashboard (/ui/github).`,
      );
    case 'token_refused':
      throw badRequest(
        "Field 'github_user_token' is not accepted by GitHub: it is unknown, expired or revoked, or not a user access token of this server's GitHub App.",
      );
    case 'not_linkable':
      throw notLinkable(id);
    case 'suspended':
      throw conflict(`GitHub App installation ${id} is suspended on GitHub; unsuspend it, then link it.`);
    case 'linked':
    case 'already_yours':
      if (outcome.sync === null)
        throw unavailable(
          `GitHub App installation ${id} is linked, but its repositories could not be listed (${outcome.listingError ?? 'unknown error'}); send the link again to retry.`,
        );
      return {
        kind: outcome.kind,
        installation: outcome.installation,
        sync: outcome.sync,
        ...(outcome.provenBy === undefined ? {} : { provenBy: outcome.provenBy }),
      };
  }
}

const tags = ['github'];

const Installation = z.object({
  installation_id: z.number().int(),
  account_login: z.string().describe('The GitHub user or organisation the app is installed on.'),
  host: z.string().describe('repo.host of its repositories.'),
  linked_by: z.enum(['operator', 'api']),
  linked_at: z.string().describe('ISO 8601 time.'),
  suspended_at: z.string().nullable(),
  repositories: z.number().int().describe('Repositories your organisation owns through it.'),
});

const LinkResponse = z.object({
  installation: Installation,
  linked: z.boolean().describe('false when the installation was already yours.'),
  repositories: z.object({
    covered: z.number().int(),
    added: z.number().int(),
    removed: z.number().int(),
    owned_elsewhere: z
      .array(z.string())
      .describe('Covered on GitHub but claimed by another organisation before; ask your operator.'),
  }),
});

const installationJson = (i: GitHubInstallation) => ({
  installation_id: i.installationId,
  account_login: i.accountLogin,
  host: i.host,
  linked_by: i.linkedBy,
  linked_at: i.linkedAt.toISOString(),
  suspended_at: i.suspendedAt?.toISOString() ?? null,
  repositories: i.repositories,
});

const syncJson = (s: SyncResult) => ({
  covered: s.covered,
  added: s.added,
  removed: s.removed,
  owned_elsewhere: s.ownedElsewhere.map((r) => `${r.host}/${r.owner}/${r.name}`),
});

export function gitHubInstallationRoutes(deps: GitHubInstallationApiDeps) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/github/installations',
      {
        schema: {
          tags,
          summary: "Your organisation's linked GitHub App installations.",
          response: { 200: z.object({ installations: z.array(Installation) }) },
        },
      },
      async (request) => ({
        installations: (await deps.store.list(organisationOf(request).id)).map(installationJson),
      }),
    );

    r.post(
      '/github/installations/link',
      {
        schema: {
          tags,
          summary: 'Link a GitHub App installation to your organisation; its repositories become yours.',
          body: z.object({
            installation_id: z
              .number()
              .int()
              .min(1)
              .max(Number.MAX_SAFE_INTEGER)
              .describe('The number at the end of the installation settings URL on GitHub.'),
            github_user_token: z
              .string()
              .min(1)
              .max(255)
              .optional()
              .describe(
                "A user access token of this server's GitHub App (ghu_…) of someone who administers the installation's GitHub account; needed unless the installation is already yours. Used once, never stored.",
              ),
          }),
          response: { 200: LinkResponse },
        },
      },
      async (request) => {
        const org = organisationOf(request);
        const id = request.body.installation_id;
        if (app.repositoryAccess.claims === 'operator') throw forbidden(OPERATOR_LINKS_ONLY);
        const outcome = await linkForOrganisation(deps, org.id, id, request.body.github_user_token ?? null);
        if (outcome.provenBy !== undefined)
          request.log.info(
            { installationId: id, githubUser: outcome.provenBy },
            'GitHub App installation linked with proof',
          );
        return {
          installation: installationJson(outcome.installation),
          linked: outcome.kind === 'linked',
          repositories: syncJson(outcome.sync),
        };
      },
    );
  };
}
