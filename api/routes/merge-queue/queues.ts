/**
 * Queue administration: create, read, update, delete (the endpoints Terraform drives). createQueue
 * answers 409 for an existing queue, 404 for a repository that does not exist on the local git host
 * (repository-on-host.ts); deleteQueue 400 while PRs remain; updateQueue answers the settings
 * (getQueue without enqueuedPullRequests). The three changes honour an Idempotency-Key (idempotency.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { organisationOf } from '../../plugins/request-context';
import { Empty, QueueRequest } from '../../schemas/common';
import { CreateQueueRequest, QueueSettings, QueueView, UpdateQueueRequest } from '../../schemas/queue';
import { IdempotencyHeaders } from './idempotency';
import { queueNotFound, type MergeQueueService } from './service';
import { notFound } from '../../errors';
import type { RepositoryOnHost } from './repository-on-host';
import { changeOf } from './update-id';
import { plainJson } from '../flaky-tests/fast-json';

const tags = ['merge queue'];

export function queueRoutes(service: MergeQueueService, onHost?: RepositoryOnHost) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/createQueue',
      {
        schema: {
          tags,
          summary: 'Create a merge queue for a branch (409 if one exists).',
          body: CreateQueueRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        // The first queue of an unclaimed repository may claim it (plugins/repository-access.ts): here,
        // so a claim made for a repository that does not exist can be released again.
        config: { repository: 'route', change: 'createQueue' },
      },
      async (request) => {
        const org = organisationOf(request);
        const { repo } = request.body;
        const how = await request.server.repositoryAccess.use(org, repo);
        const missing = onHost ? await onHost(repo) : null;
        if (missing !== null) {
          if (how === 'claimed') await request.server.repositoryAccess.release(org, repo);
          throw notFound(missing);
        }
        await service.createQueue(org, request.body);
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
        // A hot read: 1,000 PRs are 380 KB that wire.ts built field by field (bench/README.md).
        ...plainJson,
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
          headers: IdempotencyHeaders,
          response: { 200: QueueSettings },
        },
        config: { change: 'updateQueue' },
      },
      (request) => service.updateQueue(changeOf(request, 'updateQueue'), request.body),
    );

    r.post(
      '/deleteQueue',
      {
        schema: {
          tags,
          summary: 'Delete an empty merge queue (400 while pull requests remain).',
          body: QueueRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        config: { change: 'deleteQueue' },
      },
      async (request) => {
        await service.deleteQueue(changeOf(request, 'deleteQueue'), request.body);
        return {};
      },
    );
  };
}
