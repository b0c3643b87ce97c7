/**
 * The merge-queue service with the organisation's queue count enforced (events/store/queue-quota.ts).
 *
 * Rules:
 * - createQueue over the limit is a 409 naming the limit and its setting, before anything is started.
 *   409, not 429: waiting does not help; deleting a queue (or a higher limit) does. Every "too many X
 *   for this organisation" answer of the API is a 409 worded this way (repositories, queues, webhook
 *   subscriptions); 429 is kept for request rates, where retrying later does help.
 * - A queue is listed before it is started; when starting it fails the listing is taken back, except
 *   on a 409 (the queue exists: it stays listed). A queue started by a call that timed out is listed
 *   again by its first PR's transitions.
 * - deleteQueue takes the queue out of the count once the queue is gone; a failure to do so is logged
 *   (the queue then counts until it is created and deleted again).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { QueueQuota, QueueRef } from '../../../events/store/queue-quota';
import { conflict, isAppError } from '../../errors';
import type { MergeQueueService, QueueAddress } from './service';

export const queueLimitReached = (limit: number) =>
  conflict(
    `Your organisation already has ${limit} merge queues, the most it may have; delete one or ask your railyard operator to raise RAILYARD_MAX_QUEUES_PER_ORGANISATION.`,
  );

const refOf = (key: QueueAddress): QueueRef => ({ ...key.repo, targetBranch: key.targetBranch });

export function limitingQueueCount(
  service: MergeQueueService,
  quota: QueueQuota,
  log: FastifyBaseLogger,
): MergeQueueService {
  return {
    ...service,

    async createQueue(org, request) {
      const reservation = await quota.reserve(org.id, refOf(request));
      switch (reservation.kind) {
        case 'limit_reached':
          throw queueLimitReached(reservation.limit);
        case 'listed':
          return service.createQueue(org, request);
        case 'reserved':
          try {
            return await service.createQueue(org, request);
          } catch (err) {
            if (!(isAppError(err) && err.kind === 'conflict')) {
              await quota.unlist(org.id, refOf(request)).catch((unlistErr: unknown) => {
                log.warn(
                  { err: unlistErr },
                  'a queue that was not created still counts against its organisation',
                );
              });
            }
            throw err;
          }
      }
    },

    async deleteQueue(change, key) {
      await service.deleteQueue(change, key);
      await quota.unlist(change.org.id, refOf(key)).catch((err: unknown) => {
        log.warn({ err }, 'a deleted queue still counts against its organisation');
      });
    },
  };
}
