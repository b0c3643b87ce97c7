/**
 * Trunk's further flaky-test endpoints (trunk-compat §2): list-unhealthy-tests (status FLAKY or
 * BROKEN), list-quarantined-tests, link-ticket-to-test-case (no org_url_slug in its body: the key's
 * organisation is used), and the GET page a ticket's html_url points at when the repository has no
 * ticket_url_template. Lists are keyset pages by test id: stable for every test that stays in them;
 * each page is one statement whose JSON the API passes through (json-list.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdKey } from '../../../flaky/service';
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
import { openList, sendListPage } from './json-list';
import { INVALID_PAGE_TOKEN, queryDigest } from './page-token';
import { organisationFor, repositoryFor, testNotFound } from './scope';
import { wireLinks } from './wire';

const TicketView = z.object({
  ticket: z.string(),
  tests: z.array(
    z.object({ test_id: z.uuid(), name: z.string(), html_url: z.url(), linked_at: z.iso.datetime() }),
  ),
});

export function trunkListRoutes(deps: FlakyRouteDeps) {
  const { store, links } = deps;
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/flaky-tests/list-unhealthy-tests',
      {
        schema: {
          tags,
          summary: 'Tests whose status is FLAKY or BROKEN, by test id.',
          body: ListUnhealthyTestsRequest,
          response: { 200: ListUnhealthyTestsResponse },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const opened = await openList(deps, request, body, idKey);
        const size = body.page_query.page_size;
        const status = body.status === 'FLAKY' ? 'flaky' : 'broken';
        const page = await store.listUnhealthyTests(
          opened.scope,
          status,
          size,
          opened.after,
          wireLinks(links, body.repo),
        );
        return sendListPage(deps, reply, {
          body,
          opened,
          page,
          items: 'tests',
          query: (pk) => queryDigest(['unhealthy', pk, status, size]),
          cursorOf: (after) => ({ after }),
        });
      },
    );

    r.post(
      '/flaky-tests/list-quarantined-tests',
      {
        schema: {
          tags,
          summary: 'Tests that are quarantined now, and why (ALWAYS_QUARANTINE or AUTO_QUARANTINE).',
          body: ListQuarantinedTestsRequest,
          response: { 200: ListQuarantinedTestsResponse },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const opened = await openList(deps, request, body, idKey);
        const size = body.page_query.page_size;
        const page = await store.listQuarantinedTests(opened.scope, size, opened.after);
        return sendListPage(deps, reply, {
          body,
          opened,
          page,
          items: 'quarantined_tests',
          query: (pk) => queryDigest(['quarantined', pk, size]),
          cursorOf: (after) => ({ after }),
        });
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
