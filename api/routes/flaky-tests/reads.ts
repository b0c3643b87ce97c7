/**
 * The spec's flaky-test reads (§4.3): list-failing-tests and get-test-details, plus the GET page a
 * test's html_url points at. All come from the rollups (flaky/store).
 *
 * list-failing-tests pins its set at the first page: the token carries `as_of` (the first call's
 * time), and every later page reads [start_time, min(end_time, as_of)), so the pages of one listing
 * neither repeat nor skip a test while uploads keep arriving. Its page, and get-test-details, are
 * one statement each whose JSON the API passes through (json-list.ts, store/test-case-json.ts); the
 * html_url page builds its body from a record (wire.ts), the same object.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FailingKey } from '../../../flaky/service';
import { badRequest } from '../../errors';
import {
  GetTestDetailsRequest,
  GetTestDetailsResponse,
  ListFailingTestsRequest,
  ListFailingTestsResponse,
  TestId,
} from '../../schemas/flaky-tests';
import { type FlakyRouteDeps, tags } from './deps';
import { plainJson, sendJsonText } from './fast-json';
import { openList, sendListPage } from './json-list';
import { INVALID_PAGE_TOKEN, queryDigest } from './page-token';
import { organisationFor, repositoryNotFound, testNotFound } from './scope';
import { testCase, wireLinks } from './wire';

export function readRoutes(deps: FlakyRouteDeps) {
  const { store, links } = deps;
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/flaky-tests/list-failing-tests',
      {
        schema: {
          tags,
          summary:
            'The distinct tests with a failing attempt in [start_time, end_time), most failures first.',
          body: ListFailingTestsRequest,
          response: { 200: ListFailingTestsResponse },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const opened = await openList(deps, request, body, failingKey);
        const size = body.page_query.page_size;
        const from = new Date(body.start_time);
        const to = new Date(body.end_time);
        const asOf = opened.token?.cursor.asOf ?? store.now().getTime();
        const page = await store.listFailingTests(
          opened.scope,
          { from, to: new Date(Math.min(to.getTime(), asOf)) },
          size,
          opened.after,
          wireLinks(links, body.repo),
        );
        return sendListPage(deps, reply, {
          body,
          opened,
          page,
          items: 'tests',
          query: (pk) => queryDigest(['failing', pk, from.getTime(), to.getTime(), size]),
          cursorOf: (after) => ({ after, asOf }),
        });
      },
    );

    r.post(
      '/flaky-tests/get-test-details',
      {
        schema: {
          tags,
          summary: 'One test case with its status, failure rates, most common failures and quarantine.',
          body: GetTestDetailsRequest,
          response: { 200: GetTestDetailsResponse },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const organisation = organisationFor(request, body.org_url_slug);
        const found = await store.getTestJson(
          { organisationId: organisation.id, key: body.repo },
          body.test_id,
          wireLinks(links, body.repo),
        );
        if (found === null) throw repositoryNotFound(body.repo);
        if (found.test === null) throw testNotFound(body.test_id, body.repo);
        return sendJsonText(reply, `{"test":${found.test}}`);
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
