/**
 * Test runs: getMergeQueueTestingDetails (Trunk's shape, trunk-compat §1.7; without `testRunId`, the
 * seed's "common fields" form, every run in progress as `{testRuns: [...]}`) and reportTestStatus,
 * railyard's own endpoint through which external CI drives the `statuses` test runner (a change: it
 * honours an Idempotency-Key, idempotency.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { organisationOf } from '../../plugins/request-context';
import { Empty } from '../../schemas/common';
import {
  ReportTestStatusRequest,
  TestingDetails,
  TestingDetailsRequest,
  TestRunsInProgress,
} from '../../schemas/merge-queue';
import { IdempotencyHeaders } from './idempotency';
import { testRunNotFound, type MergeQueueService } from './service';
import type { Organisation } from '../../../stores/api-keys';
import type { RepositoryKey } from '../../../contract';

const tags = ['merge queue'];

const REPORT_STATUS_DESCRIPTION = [
  'For queues tested by external CI (the `statuses` test runner): the queue pushes a test branch',
  '(railyard-merge/pr-<n>/<testRunId>), CI tests its head commit and reports each check here as a',
  "GitHub-style commit status for that sha. The run passes when every context in the queue's",
  '`requiredStatuses` is `success`, and fails as soon as one of them is `failure` or `error`.',
  'Reports for a sha the queue is not testing are ignored; a later report for the same context replaces',
  "an earlier one. Not part of Trunk's API.",
].join(' ');

/**
 * Also hands each reported status to the queue's preflight (api/temporal/preflights.ts), which waits
 * for statuses of its own throw-away branch on hosts whose CI reports through this endpoint.
 */
export type StatusForward = (
  org: Organisation,
  report: { repo: RepositoryKey; targetBranch: string; sha: string; context: string },
) => Promise<void>;

export function testingRoutes(service: MergeQueueService, onStatus?: StatusForward) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/getMergeQueueTestingDetails',
      {
        schema: {
          tags,
          summary: 'What a test run tests, on which branch and commit, and the statuses it has.',
          body: TestingDetailsRequest,
          response: { 200: z.union([TestingDetails, TestRunsInProgress]) },
        },
      },
      async (request) => {
        const org = organisationOf(request);
        const { testRunId, ...key } = request.body;
        if (testRunId === undefined) return service.getTestRunsInProgress(org, key);
        const details = await service.getTestingDetails(org, { ...key, testRunId });
        if (!details) throw testRunNotFound({ ...key, testRunId });
        return details;
      },
    );

    r.post(
      '/reportTestStatus',
      {
        schema: {
          tags,
          summary: 'Report a commit status of a test branch (external CI).',
          description: REPORT_STATUS_DESCRIPTION,
          body: ReportTestStatusRequest,
          headers: IdempotencyHeaders,
          response: { 200: Empty },
        },
        config: { change: 'reportTestStatus' },
      },
      async (request) => {
        await service.reportTestStatus(organisationOf(request), request.body);
        if (onStatus) await onStatus(organisationOf(request), request.body);
        return {};
      },
    );
  };
}
