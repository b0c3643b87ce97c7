/**
 * GET /v1/getMergeQueueMetrics: the merge-queue metrics of the caller's organisation in Prometheus
 * text format (`text/plain; version=0.0.4; charset=utf-8`), computed from the event log.
 *
 * Rules: `repo` (`owner/name`; the owner may contain `/`, so the name is what follows the last one)
 * needs `repoHost`, else 400; a repository with no queue created (since the queue listing began) or
 * submitted to in this organisation is a 404 (also when it belongs to another organisation); without
 * `repo`, every repository of the organisation. A created queue without submissions reports zeros.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Pool } from '../../../stores/db';
import { z } from 'zod';
import { registerQueue } from '../../../events/store/log-store';
import { readQueueMetrics, type RepositoryFilter } from '../../../events/store/metrics-reads';
import { badRequest, notFound } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import type { MergeQueueService } from '../merge-queue';
import { EXAMPLE_REPO } from '../../schemas/examples';
import { renderQueueMetrics } from './exposition';

export interface QueueMetricsDeps {
  pool: Pool;
  /** Epoch milliseconds: the end of the last-hour window (tests pin it). */
  now?: () => number;
}

const MetricsQuery = z.object({
  repo: z
    .string()
    .trim()
    .min(1)
    .max(511)
    .optional()
    .describe('Repository as owner/name.')
    .meta({ example: `${EXAMPLE_REPO.owner}/${EXAMPLE_REPO.name}` }),
  repoHost: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .optional()
    .describe('Repository host; required with repo.')
    .meta({ example: EXAMPLE_REPO.host }),
});

function repositoryOf(query: z.infer<typeof MetricsQuery>): RepositoryFilter | null {
  if (query.repo === undefined) return null;
  if (query.repoHost === undefined) throw badRequest("Field 'repoHost' is required when 'repo' is given.");
  const cut = query.repo.lastIndexOf('/');
  const owner = query.repo.slice(0, cut);
  const name = query.repo.slice(cut + 1);
  if (cut < 0 || owner === '' || name === '') throw badRequest("Field 'repo' must be in owner/name format.");
  return { host: query.repoHost, owner, name };
}

export function queueMetricsRoutes(deps: QueueMetricsDeps) {
  const now = deps.now ?? Date.now;
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/getMergeQueueMetrics',
      {
        schema: {
          tags: ['merge queue'],
          summary: 'Merge-queue metrics in Prometheus text format, from the event log.',
          querystring: MetricsQuery,
        },
      },
      async (request, reply) => {
        const organisation = organisationOf(request);
        const repository = repositoryOf(request.query);
        const metrics = await readQueueMetrics(deps.pool, organisation.id, repository, now());
        if (metrics === null) {
          throw notFound(`Repository ${request.query.repoHost}/${request.query.repo} was not found.`);
        }
        const { contentType, body } = await renderQueueMetrics(metrics);
        return reply.type(contentType).send(body);
      },
    );
  };
}

/**
 * The merge-queue service, with every created queue also listed for the metrics endpoint (so a queue
 * without submissions answers zeros, not 404). Listing happens once the queue exists; if it fails the
 * queue is still created (it is listed at its first submission) and the failure is logged.
 */
export function listingCreatedQueues(
  service: MergeQueueService,
  deps: QueueMetricsDeps,
  log: FastifyBaseLogger,
): MergeQueueService {
  return {
    ...service,
    async createQueue(org, request) {
      await service.createQueue(org, request);
      try {
        await registerQueue(deps.pool, org.id, request.repo, request.targetBranch);
      } catch (err) {
        log.warn({ err }, 'created queue not listed for getMergeQueueMetrics until its first submission');
      }
    },
  };
}
