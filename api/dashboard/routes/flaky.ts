/**
 * Flaky-test pages, all through the flaky store the API's routes use (flaky/service.ts):
 * - /ui/flaky: the organisation's repositories;
 * - /ui/flaky/repository: its flaky, broken and quarantined tests (first LIST_SIZE of each), and a link
 *   to every test of it (flaky-tests.ts);
 * - /ui/flaky/tests/:id (what a test's html_url points at): status and why, failure rates, failures
 *   per day as a chart, most common failures, owners, quarantine (why, since when, until when) and its
 *   override, the quarantine history, ticket; forms set the override (with a reason, an expiry in days
 *   and an owner) and link a ticket, recorded with the session's key prefix as actor;
 * - /ui/flaky/tickets/:ticket: the tests a ticket is linked to (a ticket's html_url without template).
 * Every read is scoped to the signed-in organisation; another's test or repository is a 404.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { explainTestStatus } from '../../../contract';
import { MAX_OVERRIDE_DAYS, QUARANTINE_OVERRIDES, QuarantineInputError } from '../../../flaky/quarantine';
import { createLinks, wireLinks } from '../../../flaky/test-case-wire';
import type { FlakyStore } from '../../../flaky/service';
import { badRequest, notFound } from '../../errors';
import { NO_CONTROL, NO_NUL, TestId, TicketKey } from '../../schemas/flaky-tests';
import type { UiRouteDeps } from './deps';
import { historyChart, jsonForScript } from './charts';
import { parse, RepoQuery, repoQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';

export const LIST_SIZE = 50;

const TestParams = z.object({ id: TestId });
const OverrideForm = z.object({
  override: z.enum(QUARANTINE_OVERRIDES, { error: `must be one of: ${QUARANTINE_OVERRIDES.join(', ')}` }),
  reason: z
    .string()
    .trim()
    .max(1000)
    .regex(NO_NUL, { message: 'must not contain NUL characters' })
    .optional(),
  // An empty field is no expiry / no owner (a form sends every field).
  expires_in_days: z
    .union([z.literal(''), z.coerce.number().int().min(1).max(MAX_OVERRIDE_DAYS)], {
      error: `must be a whole number of days from 1 to ${MAX_OVERRIDE_DAYS}`,
    })
    .optional(),
  owner: z
    .string()
    .trim()
    .max(255)
    .regex(NO_CONTROL, { message: 'must not contain control characters' })
    .optional(),
});
const TicketForm = z.object({ ticket: TicketKey });

const items = (page: { items: string } | null): Record<string, unknown>[] =>
  page === null ? [] : (JSON.parse(`[${page.items}]`) as Record<string, unknown>[]);

export function flakyPages(deps: UiRouteDeps) {
  const links = createLinks(deps.publicUrl);
  const store = (): FlakyStore => {
    if (deps.flaky === undefined) throw notFound('The flaky-test service is not enabled on this server.');
    return deps.flaky;
  };

  /** The test (of the signed-in organisation) and its repository, or the 404. */
  async function testOf(request: Parameters<typeof sessionOf>[0], id: string) {
    const org = sessionOf(request).organisation;
    const record = await store().getTestInOrganisation(org.id, id);
    const repository = record ? await store().findRepository(org.id, record.repository) : null;
    if (record === null || repository === null) throw notFound(`Test case ${id} was not found.`);
    return { record, repository };
  }

  return (app: FastifyInstance): void => {
    app.get('/ui/flaky', async (request, reply) => {
      const org = sessionOf(request).organisation;
      const repositories = (await deps.owners.list(org.id)).map((r) => ({
        label: `${r.host}/${r.owner}/${r.name}`,
        qs: repoQs(r),
      }));
      return render(deps, request, reply, 'flaky', { title: 'Flaky tests', repositories });
    });

    app.get('/ui/flaky/repository', async (request, reply) => {
      const repo = parse(RepoQuery, request.query, 'querystring');
      await requireOwned(deps, request, repo);
      const scope = { organisationId: sessionOf(request).organisation.id, key: repo };
      const wire = wireLinks(links, repo);
      const [flaky, broken, quarantined, settings] = await Promise.all([
        store().listUnhealthyTests(scope, 'flaky', LIST_SIZE, null, wire),
        store().listUnhealthyTests(scope, 'broken', LIST_SIZE, null, wire),
        store().listQuarantinedTests(scope, LIST_SIZE, null),
        store().findRepository(scope.organisationId, repo),
      ]);
      return render(deps, request, reply, 'flaky-repository', {
        title: `Flaky tests of ${repo.owner}/${repo.name}`,
        repo,
        settings,
        flaky: items(flaky),
        broken: items(broken),
        quarantined: items(quarantined),
        listSize: LIST_SIZE,
      });
    });

    app.get('/ui/flaky/tests/:id', async (request, reply) => {
      const { id } = parse(TestParams, request.params, 'querystring');
      const { record, repository } = await testOf(request, id);
      const [history, quarantineHistory] = await Promise.all([
        deps.reads.testHistory(record.pk, new Date(deps.now())),
        store().quarantineHistory(record.pk),
      ]);
      // Why the status is what it is, from the history and thresholds the classifier uses.
      const evidence = await store().statusEvidence(repository, record.pk);
      return render(deps, request, reply, 'flaky-test', {
        title: record.name,
        statusWhy: explainTestStatus(record.status, evidence, repository.params),
        t: record,
        repository,
        repoQs: repoQs(record.repository),
        overrides: QUARANTINE_OVERRIDES,
        maxOverrideDays: MAX_OVERRIDE_DAYS,
        quarantineHistory,
        chartsJson: jsonForScript([historyChart(history)]),
        ticketHref:
          record.ticket?.url ??
          (record.ticket ? `/ui/flaky/tickets/${encodeURIComponent(record.ticket.key)}` : null),
      });
    });

    app.post('/ui/flaky/tests/:id/override', async (request, reply) => {
      const { id } = parse(TestParams, request.params, 'querystring');
      const form = parse(OverrideForm, request.body, 'body');
      const { repository } = await testOf(request, id);
      const days = form.expires_in_days === '' ? undefined : form.expires_in_days;
      await store()
        .setQuarantineOverride(repository, id, {
          override: form.override,
          actor: `dashboard:${sessionOf(request).keyPrefix}`,
          ...(form.reason ? { reason: form.reason } : {}),
          ...(days === undefined ? {} : { expiresAt: new Date(store().now().getTime() + days * 86_400_000) }),
          ...(form.owner ? { owner: form.owner } : {}),
        })
        .catch((err: unknown) => {
          if (err instanceof QuarantineInputError) throw badRequest(err.message);
          throw err;
        });
      return reply.redirect(`/ui/flaky/tests/${id}`, 303);
    });

    app.post('/ui/flaky/tests/:id/ticket', async (request, reply) => {
      const { id } = parse(TestParams, request.params, 'querystring');
      const { ticket } = parse(TicketForm, request.body, 'body');
      const { repository } = await testOf(request, id);
      await store().linkTicket(repository, id, ticket);
      return reply.redirect(`/ui/flaky/tests/${id}`, 303);
    });

    app.get('/ui/flaky/tickets/:ticket', async (request, reply) => {
      const { ticket } = parse(z.object({ ticket: TicketKey }), request.params, 'querystring');
      const tests = await store().testsForTicket(sessionOf(request).organisation.id, ticket);
      return render(deps, request, reply, 'flaky-ticket', { title: `Ticket ${ticket}`, ticket, tests });
    });
  };
}
