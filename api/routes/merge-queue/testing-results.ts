/**
 * POST /v1/listMergeQueueTestingResults: Trunk's list of the testing a queue completed in a time range
 * (trunk-compat §1.5, docs/api-compat.md), newest first, one entry per PR per attempt, read from the
 * event log (events/store/testing-results.ts). Testing still in progress is not listed; pass an
 * entry's `testRunId` to getMergeQueueTestingDetails for its checks.
 *
 * Rules, as Trunk documents them: `since` is required and at most 45 days before `until` (default:
 * now), both inclusive; `offset` ≥ 0 (default 0) and `take` 1–100 (default 50); `totalItems` counts
 * every match, ignoring offset and take. A queue never created or submitted to is a 404.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Pool } from '../../../stores/db';
import { z } from 'zod';
import { readTestingResults } from '../../../events/store/testing-results';
import { badRequest } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import { QueueRequest } from '../../schemas/common';
import { EXAMPLE_QUEUE, exampleWeek, withExample } from '../../schemas/examples';
import { queueNotFound } from './service';

const tags = ['merge queue'];
const MAX_RANGE_DAYS = 45;
const DateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });

const WEEK = exampleWeek();

export const TestingResultsRequest = withExample(
  QueueRequest.extend({
    since: DateTime.describe(
      'Only testing that finished at or after this time (at most 45 days before until).',
    ),
    until: DateTime.optional().describe(
      'Only testing that finished at or before this time; defaults to now.',
    ),
    offset: z
      .number()
      .int({ message: 'must be an integer' })
      .min(0, { message: 'must be at least 0' })
      .max(1_000_000, { message: 'must be at most 1000000' })
      .default(0),
    take: z
      .number()
      .int({ message: 'must be an integer' })
      .min(1, { message: 'must be at least 1' })
      .max(100, { message: 'must be at most 100' })
      .default(50),
  }),
  // The last week's testing (both ends given: the range stays valid however long the API runs).
  { ...EXAMPLE_QUEUE, since: WEEK.start_time, until: WEEK.end_time, take: 20 },
);

export const TestingResults = z.object({
  testingResults: z.array(
    z.object({
      prNumber: z.number(),
      testRunId: z.string(),
      cycleConclusion: z
        .enum(['passed', 'failed', 'restarted', 'cancelled'])
        .describe("How the stretch of testing ended (railyard's values; Trunk's are not published)."),
      bisection: z.enum(['in_bisection', 'entered_bisection']).optional(),
      endedAt: z.string().describe("railyard's: when the stretch ended (ISO 8601)."),
    }),
  ),
  totalItems: z.number().describe('Every match, ignoring offset and take.'),
});

export function testingResultsRoutes(pool: Pool, now: () => number = Date.now) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/listMergeQueueTestingResults',
      {
        schema: {
          tags,
          summary: 'The testing a merge queue completed in a time range, newest first.',
          body: TestingResultsRequest,
          response: { 200: TestingResults },
        },
      },
      async (request) => {
        const { repo, targetBranch, offset, take } = request.body;
        const since = new Date(request.body.since);
        const until = request.body.until === undefined ? new Date(now()) : new Date(request.body.until);
        if (since > until) throw badRequest("Field 'since' must not be after 'until'.");
        if (until.getTime() - since.getTime() > MAX_RANGE_DAYS * 86_400_000)
          throw badRequest(`Field 'since' must be at most ${MAX_RANGE_DAYS} days before 'until'.`);
        const found = await readTestingResults(pool, {
          organisationId: organisationOf(request).id,
          ...repo,
          targetBranch,
          since,
          until,
          offset,
          take,
        });
        if (!found) throw queueNotFound({ repo, targetBranch });
        return found;
      },
    );
  };
}
