/**
 * POST /v1/getSubmittedPullRequests: Trunk's batch form of getSubmittedPullRequest (trunk-compat §1.5,
 * docs/api-compat.md). Every PR is of the same queue; each answers exactly as getSubmittedPullRequest
 * would, and a PR never submitted to the queue is listed in `notFound` instead of failing the request.
 *
 * Rules: at most MAX_PRS_PER_BATCH_READ numbers (duplicates count once), read 10 at a time, so one
 * request costs a bounded number of Temporal queries; the queue itself must exist (404 otherwise, as
 * for the single read's queue). `includeTimeline` adds each PR's timeline, as the single read does.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { organisationOf } from '../../plugins/request-context';
import { PrNumber, QueueRequest } from '../../schemas/common';
import {
  EXAMPLE_CONFLICTING_PR,
  EXAMPLE_FAILED_PR,
  EXAMPLE_QUEUE,
  withExample,
} from '../../schemas/examples';
import { MAX_PRS_PER_BATCH_READ } from '../../schemas/limits';
import { SubmittedPullRequest } from '../../schemas/merge-queue';
import { queueNotFound, type MergeQueueService } from './service';

const tags = ['merge queue'];
const READ_BATCH = 10;

export const SubmittedPullRequestsRequest = withExample(
  QueueRequest.extend({
    prs: z
      .array(z.object({ number: PrNumber }))
      .min(1, { message: 'must name at least one pull request' })
      .max(MAX_PRS_PER_BATCH_READ, { message: `must name at most ${MAX_PRS_PER_BATCH_READ} pull requests` }),
    includeTimeline: z.boolean().optional().describe("Add each PR's transitions, newest first."),
  }),
  // The demo's two failed PRs: one broke the tests, one conflicted.
  { ...EXAMPLE_QUEUE, prs: [{ number: EXAMPLE_FAILED_PR }, { number: EXAMPLE_CONFLICTING_PR }] },
);

export const SubmittedPullRequests = z.object({
  pullRequests: z.array(SubmittedPullRequest).describe('One per submitted PR, in the order asked.'),
  notFound: z
    .array(z.object({ number: z.number() }))
    .describe('The PRs never submitted to this queue, in the order asked.'),
});

export function batchReadRoutes(service: MergeQueueService) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/getSubmittedPullRequests',
      {
        schema: {
          tags,
          summary: 'Several pull requests of one queue, each as getSubmittedPullRequest answers it.',
          body: SubmittedPullRequestsRequest,
          response: { 200: SubmittedPullRequests },
        },
      },
      async (request) => {
        const org = organisationOf(request);
        const { prs, includeTimeline, ...key } = request.body;
        if (!(await service.getQueue(org, key))) throw queueNotFound(key);
        const numbers = [...new Set(prs.map((p) => p.number))];
        const found: (SubmittedPullRequest | null)[] = [];
        for (let i = 0; i < numbers.length; i += READ_BATCH) {
          const batch = numbers.slice(i, i + READ_BATCH);
          found.push(
            ...(await Promise.all(
              batch.map((number) =>
                service.getSubmittedPullRequest(org, { ...key, pr: { number }, includeTimeline }),
              ),
            )),
          );
        }
        return {
          pullRequests: found.filter((p): p is SubmittedPullRequest => p !== null),
          notFound: numbers.filter((_, i) => found[i] === null).map((number) => ({ number })),
        };
      },
    );
  };
}
