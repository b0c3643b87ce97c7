/**
 * POST /v1/metrics/createBundleUpload, as trunk-analytics-cli sends it (camelCase; fields it adds
 * later are ignored). `orgUrlSlug` must name the key's organisation (404 otherwise, which the CLI
 * explains as a wrong slug) and the repository must be the organisation's: an upload is a first use,
 * so under the `first-use` policy an unclaimed repository is claimed (plugins/repository-access.ts).
 * The answer's `url` is a capability on railyard itself: a PUT of it stores one bundle for this
 * repository until it expires (put.ts).
 *
 * The route opts in to Trunk's fork authentication (`forkAuth: 'public-repo-id'`, plugins/fork-auth.ts):
 * a request with the repository's `x-trunk-public-repo-id` instead of a key may start an upload for
 * that one repository (another is 403), and its PUT then needs nothing more than the URL. Such URLs
 * are counted apart from the ones the organisation's keys hold, under a small cap of their own
 * (RAILYARD_PUBLIC_ID_UPLOAD_URLS), so whoever has the public id cannot spend the owner's.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RepoRef } from '../../schemas/common';
import { OrgSlug } from '../../schemas/flaky-tests';
import { LimitExceeded } from '../../plugins/limit-exceeded';
import { organisationFor } from '../flaky-tests/scope';
import { type BundleRouteDeps, bundlePath, tags } from './deps';

const CreateBundleUploadRequest = z.object({
  repo: RepoRef,
  orgUrlSlug: OrgSlug,
  clientVersion: z.string().max(200).optional(),
  remoteUrls: z.array(z.string().max(2_000)).max(100).optional(),
  externalId: z.string().max(255).nullish(),
  testCollectionShortId: z.string().max(255).nullish(),
});

const CreateBundleUploadResponse = z.object({
  id: z.string().describe('The upload id; the results are stored under it.'),
  idV2: z.string(),
  url: z.string().describe('PUT the bundle here (application/octet-stream, no API key), before it expires.'),
  key: z.string(),
});

export function createBundleUploadRoutes(deps: BundleRouteDeps) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/metrics/createBundleUpload',
      {
        schema: {
          tags,
          summary: "Start a Trunk bundle upload (trunk-analytics-cli's first call).",
          description: `Answers a URL on this service that accepts one PUT of the bundle for ${deps.urlTtlSeconds} seconds.`,
          body: CreateBundleUploadRequest,
          response: { 200: CreateBundleUploadResponse },
        },
        // The CLI on a fork's PR sends the repository's public id instead of a key (plugins/fork-auth.ts).
        config: { repository: 'route', forkAuth: 'public-repo-id' },
      },
      async (request) => {
        const { repo, orgUrlSlug } = request.body;
        const organisation = organisationFor(request, orgUrlSlug);
        await request.server.repositoryAccess.use(organisation, repo);
        const now = deps.now();
        const expires = Math.floor(now / 1000) + deps.urlTtlSeconds;
        const caller = request.fork?.kind === 'public-repo-id' ? 'public-id' : 'key';
        const created = await deps.pending.create(
          organisation.id,
          repo,
          new Date(expires * 1000),
          new Date(now),
          caller,
        );
        switch (created.kind) {
          case 'limit_reached':
            throw new LimitExceeded(
              `Organisation ${organisation.slug} already has ${created.limit} unexpired bundle upload URLs${caller === 'public-id' ? ' made with a public repository id' : ''}; retry after ${deps.urlTtlSeconds} seconds.`,
              deps.urlTtlSeconds,
            );
          case 'created': {
            const signature = deps.signer.sign(created.id, expires);
            const url = `${deps.publicUrl}/v1${bundlePath(created.id)}?expires=${expires}&signature=${signature}`;
            return { id: created.id, idV2: created.id, url, key: `bundles/${created.id}` };
          }
        }
      },
    );
  };
}
