/**
 * Page tokens: opaque, tamper-evident keyset cursors. A token is `base64url(JSON payload)` + "." +
 * `base64url(HMAC-SHA256(secret, payload))`; the payload names the list and a digest of the query it
 * was issued for, the cursor key (the last row before the page, or null for the first page), and — for list-failing-tests — the `as_of` instant that pins the set.
 *
 * A token that was altered, forged without the secret, or issued for another query (other repository,
 * range, page size or filter) is refused with the 400. `open` checks only what the token itself can
 * prove (signature, shape) and answers the query it was issued for, so a list whose query names a
 * key that its own statement finds (the repository's) can match the two after that statement.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { badRequest } from '../../errors';

const Payload = z.object({
  v: z.literal(1),
  q: z.string(),
  k: z.array(z.union([z.string(), z.number()])).nullable(),
  a: z.number().int().optional(),
});

export interface PageCursor {
  /** Key of the last row before the page; null for "from the start". */
  readonly after: readonly (string | number)[] | null;
  /** Epoch ms the set is pinned at (list-failing-tests). */
  readonly asOf?: number;
}

/** A token whose signature and shape are good, with the query digest it was issued for. */
export interface OpenedToken {
  readonly query: string;
  readonly cursor: PageCursor;
}

export interface PageTokens {
  encode(query: string, cursor: PageCursor): string;
  /** The cursor of a token issued for this query; throws the 400 otherwise. Empty = first page. */
  decode(query: string, token: string | undefined): PageCursor | null;
  /** A signed token's query and cursor, whatever query it was for; throws the 400 otherwise. */
  open(token: string | undefined): OpenedToken | null;
}

export const INVALID_PAGE_TOKEN = "Field 'page_query.page_token' is not a valid page token.";

/** A digest of what a token is only valid for. */
export function queryDigest(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function createPageTokens(secret: string): PageTokens {
  if (secret.length < 16) throw new Error('the page-token secret must be at least 16 characters');
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest();
  const open = (token: string | undefined): OpenedToken | null => {
    if (token === undefined || token.trim() === '') return null;
    const [payload, signature, extra] = token.split('.');
    if (payload === undefined || signature === undefined || extra !== undefined)
      throw badRequest(INVALID_PAGE_TOKEN);
    // Compared as issued: base64 decoding ignores stray characters, which must not pass either.
    const expected = Buffer.from(sign(payload).toString('base64url'));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw badRequest(INVALID_PAGE_TOKEN);
    let parsed: z.infer<typeof Payload>;
    try {
      parsed = Payload.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    } catch {
      throw badRequest(INVALID_PAGE_TOKEN);
    }
    return {
      query: parsed.q,
      cursor: { after: parsed.k, ...(parsed.a === undefined ? {} : { asOf: parsed.a }) },
    };
  };
  return {
    open,
    encode(query, cursor) {
      const payload = Buffer.from(
        JSON.stringify({
          v: 1,
          q: query,
          k: cursor.after,
          ...(cursor.asOf === undefined ? {} : { a: cursor.asOf }),
        }),
      ).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(query, token) {
      const opened = open(token);
      if (opened === null) return null;
      if (opened.query !== query) throw badRequest(INVALID_PAGE_TOKEN);
      return opened.cursor;
    },
  };
}
