/**
 * Trunk's further flaky-test endpoints (trunk-compat §2): list-unhealthy-tests (status FLAKY or
 * BROKEN), list-quarantined-tests, link-ticket-to-test-case (no org_url_slug in its body: the key's
 * organisation is used), and the GET page a ticket's html_url points at when the repository has no
 * ticket_url_template. Lists are keyset pages by test id: stable for every test that stays in them.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdKey } from '../../../activities/flaky/store';
import { badRequest } from '../../errors';
import { Empty } from '../../schemas/common';
import {
  LinkTicketRequest,
  ListQuarantinedTestsRequest,
  ListQuarantinedTestsResponse,
  ListUnhealthyTestsRequest,
  ListUnhealthyTestsResponse,
  TicketKey,
} from '../../schemas/flaky-tests';
import { type FlakyRouteDeps, tags } from './deps';
import { plainJson } from './fast-json';
import { INVALID_PAGE_TOKEN, queryDigest } from './page-token';
import { organisationFor, repositoryFor, testNotFound } from './scope';
import { pageOf, quarantinedTest, unhealthyTestCase } from './wire';

const TicketView = z.object({
  ticket: z.string(),
  tests: z.array(
    z.object({ test_id: z.uuid(), name: z.string(), html_url: z.url(), linked_at: z.iso.datetime() }),
  ),
});

export function trunkListRoutes({ store, tokens, links }: FlakyRouteDeps) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/flaky-tests/list-unhealthy-tests',
      {
        ...plainJson,
        schema: {
          tags,
          summary: 'Tests whose status is FLAKY or BROKEN, by test id.',
          body: ListUnhealthyTestsRequest,
          response: { 200: ListUnhealthyTestsResponse },
        },
      },
      async (request) => {
        const body = request.body;
        const repository = await repositoryFor(store, request, body);
        const size = body.page_query.page_size;
        const status = body.status === 'FLAKY' ? 'flaky' : 'broken';
        const query = queryDigest(['unhealthy', repository.pk, status, size]);
        const cursor = tokens.decode(query, body.page_query.page_token);
        const page = await store.listUnhealthyTests(repository, status, size, idKey(cursor?.after ?? null));
        return {
          tests: page.rows.map((record) => unhealthyTestCase(record, links)),
          page: pageOf(page, size, (after) => tokens.encode(query, { after })),
        };
      },
    );

    r.post(
      '/flaky-tests/list-quarantined-tests',
      {
        ...plainJson,
        schema: {
          tags,
          summary: 'Tests that are quarantined now, and why (ALWAYS_QUARANTINE or AUTO_QUARANTINE).',
          body: ListQuarantinedTestsRequest,
          response: { 200: ListQuarantinedTestsResponse },
        },
      },
      async (request) => {
        const body = request.body;
        const repository = await repositoryFor(store, request, body);
        const size = body.page_query.page_size;
        const query = queryDigest(['quarantined', repository.pk, size]);
        const cursor = tokens.decode(query, body.page_query.page_token);
        const page = await store.listQuarantinedTests(repository, size, idKey(cursor?.after ?? null));
        return {
          quarantined_tests: page.rows.filter((t) => t.quarantine.quarantined).map(quarantinedTest),
          page: pageOf(page, size, (after) => tokens.encode(query, { after })),
        };
      },
    );

    r.post(
      '/flaky-tests/link-ticket-to-test-case',
      {
        schema: {
          tags,
          summary: 'Link a ticket (Jira or Linear key such as KAN-123) to a test case.',
          body: LinkTicketRequest,
          response: { 200: Empty },
        },
      },
      async (request) => {
        const repository = await repositoryFor(store, request, request.body);
        const linked = await store.linkTicket(
          repository,
          request.body.test_case_id,
          request.body.external_ticket_id,
        );
        if (!linked) throw testNotFound(request.body.test_case_id, request.body.repo);
        return {};
      },
    );

    r.get(
      '/flaky-tests/tickets/:ticket',
      {
        schema: {
          tags,
          summary: 'The tests a ticket is linked to (what a ticket html_url points at by default).',
          params: z.object({ ticket: TicketKey }),
          response: { 200: TicketView },
        },
      },
      async (request) => {
        const organisation = organisationFor(request, undefined);
        const linked = await store.testsForTicket(organisation.id, request.params.ticket);
        return {
          ticket: request.params.ticket,
          tests: linked.map((t) => ({
            test_id: t.testId,
            name: t.name,
            html_url: links.test(t.testId),
            linked_at: t.linkedAt.toISOString(),
          })),
        };
      },
    );
  };
}

function idKey(after: readonly (string | number)[] | null): IdKey | null {
  if (after === null) return null;
  const [id] = after;
  if (after.length !== 1 || typeof id !== 'string' || !/^[0-9a-f-]{36}$/.test(id))
    throw badRequest(INVALID_PAGE_TOKEN);
  return [id];
}
