/**
 * /ui/flaky/repository/tests: every test of a repository (issue 29: a healthy test could only be found
 * through the API), read through the flaky store (flaky/store/test-list.ts): searched by a substring
 * of its name, classname or file, filtered by status, sorted by failure rate (last RATE_DAYS UTC days)
 * or by name, PAGE_SIZE at a time with a pager. Each test links to its page, which says why its status
 * is what it is. The repository's flaky page links here.
 *
 * Rules: the organisation must own the repository (the API's 404 otherwise); every query field is
 * checked with one sentence naming it (400); no repository row yet (nothing uploaded) lists nothing.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FlakyStore, TestListQuery } from '../../../flaky/service';
import { MAX_PAGE, MAX_SEARCH_CHARS, RATE_DAYS } from '../../../flaky/store/test-list';
import { notFound } from '../../errors';
import { NO_CONTROL } from '../../schemas/flaky-tests';
import type { UiRouteDeps } from './deps';
import { parse, RepoQuery, repoQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';

export const PAGE_SIZE = 50;

const STATUSES = ['healthy', 'flaky', 'broken'] as const;
const SORTS = ['failure_rate', 'name'] as const;

const ListQuery = z.object({
  q: z
    .string()
    .max(MAX_SEARCH_CHARS, { message: `must be at most ${MAX_SEARCH_CHARS} characters` })
    .regex(NO_CONTROL, { message: 'must not contain control characters' })
    .optional(),
  // A form sends every field: an empty status is every status.
  status: z
    .union([z.literal(''), z.enum(STATUSES)], { error: `must be one of: ${STATUSES.join(', ')}` })
    .optional(),
  sort: z.enum(SORTS, { error: `must be one of: ${SORTS.join(', ')}` }).optional(),
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE, { message: `must be at most ${MAX_PAGE}` })
    .optional(),
});

export function flakyTestListPages(deps: UiRouteDeps) {
  const store = (): FlakyStore => {
    if (deps.flaky === undefined) throw notFound('The flaky-test service is not enabled on this server.');
    return deps.flaky;
  };

  return (app: FastifyInstance): void => {
    app.get('/ui/flaky/repository/tests', async (request, reply) => {
      const repo = parse(RepoQuery, request.query, 'querystring');
      const form = parse(ListQuery, request.query, 'querystring');
      await requireOwned(deps, request, repo);
      const repository = await store().findRepository(sessionOf(request).organisation.id, repo);
      const query: TestListQuery = {
        ...(form.q?.trim() ? { search: form.q.trim() } : {}),
        ...(form.status ? { status: form.status } : {}),
        sort: form.sort ?? 'failure_rate',
        page: form.page ?? 1,
        pageSize: PAGE_SIZE,
      };
      const listed = repository
        ? await store().listRepositoryTests(repository, query)
        : { tests: [], total: 0 };
      const pages = Math.max(1, Math.ceil(listed.total / PAGE_SIZE));
      /** This page's address with `change` applied (the pager's and the sort links' targets). */
      const href = (change: Record<string, string>) =>
        `/ui/flaky/repository/tests?${new URLSearchParams({
          host: repo.host,
          owner: repo.owner,
          name: repo.name,
          ...(query.search ? { q: query.search } : {}),
          ...(query.status ? { status: query.status } : {}),
          sort: query.sort,
          ...change,
        }).toString()}`;
      return render(deps, request, reply, 'flaky-tests', {
        title: `Tests of ${repo.owner}/${repo.name}`,
        repo,
        repoQs: repoQs(repo),
        uploaded: repository !== null,
        query,
        statuses: STATUSES,
        tests: listed.tests,
        total: listed.total,
        first: (query.page - 1) * PAGE_SIZE + 1,
        pages,
        rateDays: RATE_DAYS,
        previous: query.page > 1 ? href({ page: String(query.page - 1) }) : null,
        next: query.page < pages ? href({ page: String(query.page + 1) }) : null,
        sortBy: {
          failure_rate: href({ sort: 'failure_rate', page: '1' }),
          name: href({ sort: 'name', page: '1' }),
        },
      });
    });
  };
}
