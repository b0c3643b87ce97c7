/**
 * The merge-queue area of the Trunk v1 API, registered under /v1. Routes are thin: zod body and
 * response schemas, the caller's organisation, one MergeQueueService call (service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { pullRequestRoutes } from './pull-requests';
import { queueRoutes } from './queues';
import type { MergeQueueService } from './service';
import { testingRoutes } from './testing';

export type { Change, MergeQueueService, QueueKey } from './service';

/** `now` places a request in its retry window (update-id.ts); tests pass a fixed clock. */
export function mergeQueueRoutes(service: MergeQueueService, now: () => number = Date.now) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(queueRoutes(service, now));
    await app.register(pullRequestRoutes(service, now));
    await app.register(testingRoutes(service));
  };
}
