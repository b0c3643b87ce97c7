/**
 * The spec's flaky-test reads (§4.3): list-failing-tests and get-test-details, plus the GET page a
 * test's html_url points at. All come from the rollups (activities/flaky/store).
 *
 * list-failing-tests pins its set at the first page: the token carries `as_of` (the first call's
 * time), and every later page reads [start_time, min(end_time, as_of)), so the pages of one listing
 * neither repeat nor skip a test while uploads keep arriving.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FailingKey } from '../../../activities/flaky/store';
import { badRequest } from '../../errors';
import {
  GetTestDetailsRequest,
  GetTestDetailsResponse,
  ListFailingTestsRequest,
  ListFailingTestsResponse,
  TestId,
} from '../../schemas/flaky-tests';
import { type FlakyRouteDeps, tags } from './deps';
import { plainJson } from './fast-json';
import { INVALID_PAGE_TOKEN, queryDigest } from './page-token';
import { organisationFor, repositoryFor, testNotFound } from './scope';
import { pageOf, testCase } from './wire';

export function readRoutes({ store, tokens, links }: FlakyRouteDeps) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/flaky-tests/list-failing-tests',
      {
        ...plainJson,
        schema: {
          tags,
          summary:
            'The distinct tests with a failing attempt in [start_time, end_time), most failures first.',
          body: ListFailingTestsRequest,
          response: { 200: ListFailingTestsResponse },
        },
      },
      async (request) => {
        const body = request.body;
        const repository = await repositoryFor(store, request, body);
        const size = body.page_query.page_size;
        const from = new Date(body.start_time);
        const to = new Date(body.end_time);
        const query = queryDigest(['failing', repository.pk, from.getTime(), to.getTime(), size]);
        const cursor = tokens.decode(query, body.page_query.page_token);
        const asOf = cursor?.asOf ?? store.now().getTime();
        const page = await store.listFailingTests(
          repository,
          { from, to: new Date(Math.min(to.getTime(), asOf)) },
          size,
          failingKey(cursor?.after ?? null),
        );
        return {
          tests: page.rows.map((record) => testCase(record, links)),
          page: pageOf(page, size, (after) => tokens.encode(query, { after, asOf })),
        };
      },
    );

    r.post(
      '/flaky-tests/get-test-details',
      {
        ...plainJson,
        schema: {
          tags,
          summary: 'One test case with its status, failure rates, most common failures and quarantine.',
          body: GetTestDetailsRequest,
          response: { 200: GetTestDetailsResponse },
        },
      },
      async (request) => {
        const repository = await repositoryFor(store, request, request.body);
        const record = await store.getTest(repository, request.body.test_id);
        if (record === null) throw testNotFound(request.body.test_id, request.body.repo);
        return { test: testCase(record, links) };
      },
    );

    r.get(
      '/flaky-tests/tests/:test_id',
      {
        ...plainJson,
        schema: {
          tags,
          summary: 'The test case a html_url points at (same body as get-test-details).',
          params: z.object({ test_id: TestId }),
          response: { 200: GetTestDetailsResponse },
        },
      },
      async (request) => {
        const organisation = organisationFor(request, undefined);
        const record = await store.getTestInOrganisation(organisation.id, request.params.test_id);
        if (record === null) throw testNotFound(request.params.test_id);
        return { test: testCase(record, links) };
      },
    );
  };
}

function failingKey(after: readonly (string | number)[] | null): FailingKey | null {
  if (after === null) return null;
  const [failures, pk] = after;
  if (after.length !== 2 || typeof failures !== 'number' || typeof pk !== 'string' || !/^\d+$/.test(pk))
    throw badRequest(INVALID_PAGE_TOKEN);
  return [failures, pk];
}
