/**
 * Repository claims (docs/adr/0006-repository-ownership.md): `POST /v1/repositories/claim` makes an
 * unclaimed repository the caller's, `GET /v1/repositories` lists the caller's repositories with their
 * public ids (the fork PRs' upload credential, plugins/fork-auth.ts).
 *
 * Rules: a claim of a repository the caller owns already is a 200 with `claimed: false`; of one another
 * organisation owns, a 409 (the claim cannot succeed, so saying so tells nothing a 404 would hide from
 * someone able to guess the name); over the organisation's limit, a 409 naming it; under the
 * `operator` claim policy, a 403 (only `npm run repos -- add` claims).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RepositoryOwnerStore } from '../../../stores/repository-owners';
import { conflict, forbidden } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import { repositoryLimitReached } from '../../plugins/repository-access';
import { RepoRef } from '../../schemas/common';
import { EXAMPLE_REPO, withExample } from '../../schemas/examples';
import { repositoryLabel } from '../../../contract';

const tags = ['repositories'];

const Repository = z.object({ host: z.string(), owner: z.string(), name: z.string() });

const ClaimResponse = z.object({
  repository: Repository,
  claimed: z.boolean().describe('false when the repository was already yours.'),
});

const RepositoryList = z.object({
  repositories: z.array(
    Repository.extend({
      claimed_at: z.string().describe('ISO 8601 time.'),
      public_id: z
        .string()
        .describe(
          "The repository's public id: CI of pull requests from forks sends it as x-trunk-public-repo-id (TRUNK_PUBLIC_REPO_ID) to upload test results without an API key. It authorises nothing else.",
        ),
    }),
  ),
});

export function repositoryRoutes(owners: RepositoryOwnerStore) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/repositories/claim',
      {
        schema: {
          tags,
          summary: 'Claim an unclaimed repository for your organisation.',
          body: withExample(z.object({ repo: RepoRef }), { repo: EXAMPLE_REPO }),
          response: { 200: ClaimResponse },
        },
        config: { repository: 'route' },
      },
      async (request) => {
        const org = organisationOf(request);
        const { repo } = request.body;
        if (app.repositoryAccess.claims === 'operator') {
          throw forbidden(
            'Repositories are claimed by the operator on this server (npm run repos -- add); ask your railyard operator.',
          );
        }
        const result = await app.repositoryAccess.claim(org, repo);
        switch (result.kind) {
          case 'claimed':
          case 'already_yours':
            return { repository: repo, claimed: result.kind === 'claimed' };
          case 'taken':
            throw conflict(
              `Repository ${repositoryLabel(repo)} is already claimed by another organisation; ask your railyard operator to transfer it.`,
            );
          case 'limit_reached':
            throw repositoryLimitReached(result.limit);
        }
      },
    );

    r.get(
      '/repositories',
      {
        schema: { tags, summary: "Your organisation's repositories.", response: { 200: RepositoryList } },
      },
      async (request) => {
        const owned = await owners.list(organisationOf(request).id);
        return {
          repositories: owned.map((o) => ({
            host: o.host,
            owner: o.owner,
            name: o.name,
            claimed_at: o.claimedAt.toISOString(),
            public_id: o.publicId,
          })),
        };
      },
    );
  };
}
