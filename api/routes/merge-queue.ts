/**
 * Merge-queue endpoints (Trunk v1). Each route validates its body with zod, scopes the call to the
 * caller's organisation and delegates to the MergeQueueService, which talks to Temporal.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Organisation } from '../../activities/stores/api-keys';
import { notFound } from '../errors';
import { organisationOf } from '../plugins/auth';
import { QueueRequest, type RepoRef } from '../schemas/common';
import { QueueView } from '../schemas/queue';

export interface QueueKey {
  repo: RepoRef;
  targetBranch: string;
}

export interface MergeQueueService {
  getQueue(org: Organisation, key: QueueKey): Promise<QueueView | null>;
}

export const queueNotFound = (key: QueueKey) =>
  notFound(
    `No merge queue exists for branch "${key.targetBranch}" of ${key.repo.host}/${key.repo.owner}/${key.repo.name}.`,
  );

export function mergeQueueRoutes(service: MergeQueueService) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.post(
      '/getQueue',
      { schema: { tags: ['merge queue'], body: QueueRequest, response: { 200: QueueView } } },
      async (request) => {
        const queue = await service.getQueue(organisationOf(request), request.body);
        if (!queue) throw queueNotFound(request.body);
        return queue;
      },
    );
  };
}
