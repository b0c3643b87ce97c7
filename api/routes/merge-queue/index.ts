/**
 * The merge-queue area of the Trunk v1 API, registered under /v1. Routes are thin: zod body and
 * response schemas, the caller's organisation, one MergeQueueService call (service.ts). Change
 * routes (`config.change`) honour an Idempotency-Key (idempotency.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { IdempotencyKeyStore } from '../../../stores/idempotency-keys';
import { batchReadRoutes } from './batch-reads';
import { registerIdempotency } from './idempotency';
import { pullRequestRoutes } from './pull-requests';
import { queueRoutes } from './queues';
import type { RepositoryOnHost } from './repository-on-host';
import type { MergeQueueService } from './service';
import { testingRoutes, type StatusForward } from './testing';
import { testRunLogRoutes } from './test-run-logs';
import { namedPlugin } from '../../plugins/named-plugin';

export type { Change, MergeQueueService, QueueAddress } from './service';

export function mergeQueueRoutes(
  service: MergeQueueService,
  idempotencyKeys: IdempotencyKeyStore,
  onHost?: RepositoryOnHost,
  onStatus?: StatusForward,
) {
  return async (app: FastifyInstance): Promise<void> => {
    registerIdempotency(app, idempotencyKeys);
    await app.register(namedPlugin('queueRoutes', queueRoutes(service, onHost)));
    await app.register(namedPlugin('pullRequestRoutes', pullRequestRoutes(service)));
    await app.register(namedPlugin('testingRoutes', testingRoutes(service, onStatus)));
    await app.register(namedPlugin('batchReadRoutes', batchReadRoutes(service)));
    await app.register(namedPlugin('testRunLogRoutes', testRunLogRoutes(service)));
  };
}
