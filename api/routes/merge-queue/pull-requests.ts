/**
 * Pull-request endpoints: submit, cancel, restart, impacted targets, and the two reads. Each route
 * validates its body, scopes the call to the caller's organisation and makes one service call.
 * A resubmission of a queued PR is not an error: it updates priority and noBatch in place (200), and
 * changes nothing when they are the same. A submission of a PR that left the queue is a new one.
 * The four changes honour an Idempotency-Key (idempotency.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { plainJson } from '../flaky-tests/fast-json';
import { organisationOf } from '../../plugins/request-context';
import { Empty } from '../../schemas/common';
import {
  GetSubmittedPullRequestRequest,
  ListPullRequestsRequest,
  PrRequest,
  PullRequestPage,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
} from '../../schemas/merge-queue';
import { IdempotencyHeaders } from './idempotency';
import { pullRequestNotFound, type MergeQueueService } from './service';
import { changeOf } from './update-id';

const tags = ['merge queue'];

export function pullRequestRoutes(service: MergeQueueService) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/submitPullRequest',
      {
        schema: {
          tags,
          summary: 'Submit a pull request to the queue, or update its priority and noBatch if queued.',
          body: SubmitPullRequestRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        config: { change: 'submitPullRequest' },
      },
      async (request) => {
        await service.submitPullRequest(changeOf(request, 'submitPullRequest'), request.body);
        return {};
      },
    );

    r.post(
      '/cancelPullRequest',
      {
        schema: {
          tags,
          summary: 'Remove a pull request from the queue (404 if it is not in the queue).',
          body: PrRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        config: { change: 'cancelPullRequest' },
      },
      async (request) => {
        await service.cancelPullRequest(changeOf(request, 'cancelPullRequest'), request.body);
        return {};
      },
    );

    r.post(
      '/restartTestsOnPullRequest',
      {
        schema: {
          tags,
          summary: 'Restart testing of a queued pull request in place (404 if it is not in the queue).',
          body: PrRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        config: { change: 'restartTestsOnPullRequest' },
      },
      async (request) => {
        await service.restartTestsOnPullRequest(changeOf(request, 'restartTestsOnPullRequest'), request.body);
        return {};
      },
    );

    r.post(
      '/setImpactedTargets',
      {
        schema: {
          tags,
          summary: "Set the targets a pull request's head commit impacts (parallel queues).",
          body: SetImpactedTargetsRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        // merge-action on a fork's PR sends the run id instead of a key (plugins/fork-auth.ts).
        config: { change: 'setImpactedTargets', forkAuth: 'forked-run' },
      },
      async (request) => {
        await service.setImpactedTargets(changeOf(request, 'setImpactedTargets'), request.body);
        return {};
      },
    );

    r.post(
      '/getSubmittedPullRequest',
      {
        schema: {
          tags,
          summary: "A pull request's latest submission, also after it left the queue.",
          body: GetSubmittedPullRequestRequest,
          response: { 200: SubmittedPullRequest },
        },
        // Another organisation's repository answers as a PR never submitted (plugins/repository-access.ts).
        config: { repositoryMissing: pullRequestNotFound },
      },
      async (request) => {
        const found = await service.getSubmittedPullRequest(organisationOf(request), request.body);
        if (!found) throw pullRequestNotFound(request.body);
        return found;
      },
    );

    r.post(
      '/listPullRequests',
      {
        schema: {
          tags,
          summary: 'Submissions to the queue a page at a time: open ones first, then the latest finished.',
          body: ListPullRequestsRequest,
          response: { 200: PullRequestPage },
        },
        // A hot read, built field by field by wire.ts (bench/README.md).
        ...plainJson,
      },
      (request) => service.listPullRequests(organisationOf(request), request.body),
    );
  };
}
