/**
 * The list routes' common path: one statement per page that finds the repository and writes the
 * items as JSON (flaky/store/lists.ts), passed through as the response body.
 *
 * The page token's query digest names the repository's key, which that same statement finds, so a
 * token is opened (signature and shape) before the statement and matched to its query after it. A
 * signed cursor issued for another query (another repository, range or size) can thus position one
 * statement over the caller's own repository, whose answer is then refused with the same 400;
 * nothing of it is sent.
 *
 * Errors keep the order they had when the repository was read first: another organisation's slug,
 * then an unknown repository (404), then a bad token (400).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonPage, RepositoryScope } from '../../../flaky/service';
import { badRequest } from '../../errors';
import type { RepositoryKey } from '../../../contract';
import type { FlakyRouteDeps } from './deps';
import { sendJsonText } from './fast-json';
import { INVALID_PAGE_TOKEN, type OpenedToken, type PageCursor } from './page-token';
import { organisationFor, repositoryNotFound } from './scope';
import { pageOf } from './wire';

export interface ListBody {
  readonly repo: RepositoryKey;
  readonly org_url_slug?: string;
  readonly page_query: { readonly page_size: number; readonly page_token?: string | undefined };
}

export interface OpenedList<K> {
  readonly scope: RepositoryScope;
  /** The signed token, or null for the first page. */
  readonly token: OpenedToken | null;
  /** Its cursor key, checked by `parseKey`. */
  readonly after: K | null;
}

/** The caller's repository scope and the page token's cursor; throws the 404 or the 400. */
export async function openList<K>(
  { store, tokens }: FlakyRouteDeps,
  request: FastifyRequest,
  body: ListBody,
  parseKey: (after: PageCursor['after']) => K | null,
): Promise<OpenedList<K>> {
  const organisation = organisationFor(request, body.org_url_slug);
  const scope = { organisationId: organisation.id, key: body.repo };
  try {
    const token = tokens.open(body.page_query.page_token);
    return { scope, token, after: parseKey(token?.cursor.after ?? null) };
  } catch (err) {
    // An unknown repository is still the 404 with a bad token; an extra statement on errors only.
    if ((await store.findRepository(organisation.id, body.repo)) === null)
      throw repositoryNotFound(body.repo);
    throw err;
  }
}

/**
 * Answers the page: `{"<items>":[…],"page":{…}}` with the items as PostgreSQL wrote them and the
 * page object (tokens signed here) serialised by JSON.stringify. `query` is the digest this list's
 * tokens are valid for, given the repository's key; `cursorOf` is what the next tokens carry.
 */
export function sendListPage<K>(
  { tokens }: FlakyRouteDeps,
  reply: FastifyReply,
  list: {
    readonly body: ListBody;
    readonly opened: OpenedList<K>;
    readonly page: JsonPage<K> | null;
    readonly items: 'tests' | 'quarantined_tests';
    readonly query: (repositoryPk: string) => string;
    readonly cursorOf: (after: K | null) => PageCursor;
  },
): FastifyReply {
  const { body, opened, page } = list;
  if (page === null) throw repositoryNotFound(body.repo);
  const query = list.query(page.repositoryPk);
  if (opened.token !== null && opened.token.query !== query) throw badRequest(INVALID_PAGE_TOKEN);
  const pageObject = pageOf(page, body.page_query.page_size, (after) =>
    tokens.encode(query, list.cursorOf(after)),
  );
  return sendJsonText(reply, `{"${list.items}":[${page.items}],"page":${JSON.stringify(pageObject)}}`);
}
