/**
 * Queue administration: create, read, update, delete (the endpoints Terraform drives). createQueue
 * answers 409 for an existing queue; deleteQueue 400 while PRs remain; updateQueue answers the settings
 * (getQueue without enqueuedPullRequests).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { organisationOf } from '../../plugins/auth';
import { Empty, QueueRequest } from '../../schemas/common';
import { CreateQueueRequest, QueueSettings, QueueView, UpdateQueueRequest } from '../../schemas/queue';
import { queueNotFound, type MergeQueueService } from './service';
import { changeOf } from './update-id';

const tags = ['merge queue'];

export function queueRoutes(service: MergeQueueService, now: () => number) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/createQueue',
      {
        schema: {
          tags,
          summary: 'Create a merge queue for a branch (409 if one exists).',
          body: CreateQueueRequest,
          response: { 200: Empty },
        },
      },
      async (request) => {
        await service.createQueue(organisationOf(request), request.body);
        return {};
      },
    );

    r.post(
      '/getQueue',
      {
        schema: {
          tags,
          summary: 'Queue state, settings and enqueued pull requests in queue order.',
          body: QueueRequest,
          response: { 200: QueueView },
        },
      },
      async (request) => {
        const queue = await service.getQueue(organisationOf(request), request.body);
        if (!queue) throw queueNotFound(request.body);
        return queue;
      },
    );

    r.post(
      '/updateQueue',
      {
        schema: {
          tags,
          summary: 'Change queue settings or state; omitted settings are unchanged.',
          body: UpdateQueueRequest,
          response: { 200: QueueSettings },
        },
      },
      (request) => service.updateQueue(changeOf(request, 'updateQueue', now), request.body),
    );

    r.post(
      '/deleteQueue',
      {
        schema: {
          tags,
          summary: 'Delete an empty merge queue (400 while pull requests remain).',
          body: QueueRequest,
          response: { 200: Empty },
        },
      },
      async (request) => {
        await service.deleteQueue(changeOf(request, 'deleteQueue', now), request.body);
        return {};
      },
    );
  };
}
