/**
 * GitHub App installations of the caller's organisation (docs/adr/0008-github-installations.md):
 * `GET /v1/github/installations` lists them, `POST /v1/github/installations/link` links one.
 *
 * Rules (an installation id is a small guessable number, so the API links only what nobody has):
 * - Under `RAILYARD_REPOSITORY_CLAIMS=operator` linking is the operator's (`npm run github -- link`): 403.
 * - The installation must be one of this app's on GitHub (404 otherwise) and not suspended (409).
 * - One linked to another organisation is a 409 that names no organisation; one linked to the caller
 *   is a 200 with `linked: false` that lists its repositories again.
 * - An installation linked through the API never takes a repository from an organisation that claimed
 *   it before; those are reported in `repositories.owned_elsewhere` (only an operator's link moves them).
 * - A listing GitHub could not give is a 503 after the link is made; sending the link again retries it.
 * The listing shows only the caller's installations.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GitHubAuthError } from '../../../github/app/app-auth';
import { linkInstallation, type LinkingDeps } from '../../../github/app/linking';
import type { GitHubInstallation, SyncResult } from '../../../github/store/installations';
import { conflict, forbidden, notFound, unavailable } from '../../errors';
import { organisationOf } from '../../plugins/request-context';

export type GitHubInstallationApiDeps = LinkingDeps;

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
          }),
          response: { 200: LinkResponse },
        },
      },
      async (request) => {
        const org = organisationOf(request);
        const id = request.body.installation_id;
        if (app.repositoryAccess.claims === 'operator')
          throw forbidden(
            'GitHub App installations are linked by the operator on this server (npm run github -- link); ask your railyard operator.',
          );
        let outcome;
        try {
          outcome = await linkInstallation(deps, org.id, id, 'api');
        } catch (err) {
          if (err instanceof GitHubAuthError) throw unavailable(`${err.message} Try again later.`);
          throw err;
        }
        switch (outcome.kind) {
          case 'not_found':
            throw notFound(
              `GitHub App installation ${id} does not exist or is not an installation of this server's app; install the app on GitHub first.`,
            );
          case 'suspended':
            throw conflict(
              `GitHub App installation ${id} is suspended on GitHub; unsuspend it, then link it.`,
            );
          case 'taken':
            throw conflict(
              `GitHub App installation ${id} is already linked to another organisation; ask your railyard operator.`,
            );
          case 'linked':
          case 'already_yours':
            if (outcome.sync === null)
              throw unavailable(
                `GitHub App installation ${id} is linked, but its repositories could not be listed (${outcome.listingError ?? 'unknown error'}); send the link again to retry.`,
              );
            return {
              installation: installationJson(outcome.installation),
              linked: outcome.kind === 'linked',
              repositories: syncJson(outcome.sync),
            };
        }
      },
    );
  };
}
