/**
 * The GitHub App's webhook delivery log (App JWT): one page of `GET /app/hook/deliveries` (newest
 * first, paged by the `cursor` of its `link: rel="next"`), and `POST /app/hook/deliveries/{id}/attempts`
 * (GitHub redelivers that delivery with its original X-GitHub-Delivery guid).
 *
 * Invariants: the JWT travels only in the Authorization header; a failure is a GitHubAuthError
 * (app-auth.ts `wrap`) naming the call and GitHub's status, never a credential. Each item is read with
 * zod (bounded fields); an item that does not parse is skipped and counted, not trusted. Only the
 * `cursor` parameter is taken from the `link` header, and it is sent back to the configured API URL,
 * never to the URL the header names.
 */
import { z } from 'zod';
import { wrap, type GitHubAppAuth } from './app-auth';

export interface HookDelivery {
  /** The attempt's id (what a redelivery names). */
  id: number;
  /** X-GitHub-Delivery: the same for every attempt of one delivery. */
  guid: string;
  deliveredAt: Date;
  /** The HTTP status railyard's endpoint answered (0 when it could not be reached). */
  statusCode: number;
  event: string;
}

export interface HookDeliveryPage {
  items: HookDelivery[];
  /** Items that did not parse (skipped). */
  skipped: number;
  /** The cursor of the next (older) page, or null on the last one. */
  next: string | null;
}

export interface HookDeliveriesApi {
  page(cursor: string | null): Promise<HookDeliveryPage>;
  redeliver(id: number): Promise<void>;
}

export interface HookDeliveriesApiOptions {
  /** Items per page (GitHub: at most 100). */
  perPage?: number;
  /** Deadline of each request (default 30 s). */
  timeoutMs?: number;
}

const Item = z.object({
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  guid: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/),
  delivered_at: z.iso.datetime({ offset: true }),
  status_code: z.number().int().min(0).max(999),
  event: z.string().max(100),
});

const CURSOR = /^[A-Za-z0-9_=+/.-]{1,500}$/;

/** The `cursor` of the `rel="next"` link, or null. */
export function nextCursor(link: string | undefined): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /^\s*<([^>]*)>\s*;\s*rel="?next"?\s*$/.exec(part);
    if (!m) continue;
    try {
      const cursor = new URL(m[1]!, 'https://api.invalid').searchParams.get('cursor');
      return cursor !== null && CURSOR.test(cursor) ? cursor : null;
    } catch {
      return null;
    }
  }
  return null;
}

export async function createHookDeliveriesApi(
  settings: { apiUrl: string },
  auth: Pick<GitHubAppAuth, 'appAuthorization'>,
  options: HookDeliveriesApiOptions = {},
): Promise<HookDeliveriesApi> {
  const { request: base } = await import('@octokit/request');
  const request = base.defaults({ baseUrl: settings.apiUrl, headers: { 'user-agent': 'railyard' } });
  const perPage = options.perPage ?? 100;
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    async page(cursor) {
      const authorization = await auth.appAuthorization();
      let response: { data: unknown; headers: { link?: string } };
      try {
        response = await request('GET /app/hook/deliveries', {
          per_page: perPage,
          ...(cursor !== null ? { cursor } : {}),
          headers: { authorization },
          request: { signal: AbortSignal.timeout(timeoutMs) },
        });
      } catch (err) {
        throw wrap(err, "Could not list the GitHub App's webhook deliveries");
      }
      const rows = Array.isArray(response.data) ? (response.data as unknown[]) : [];
      const items: HookDelivery[] = [];
      let skipped = Array.isArray(response.data) ? 0 : 1;
      for (const row of rows) {
        const p = Item.safeParse(row);
        if (!p.success) {
          skipped++;
          continue;
        }
        items.push({
          id: p.data.id,
          guid: p.data.guid,
          deliveredAt: new Date(p.data.delivered_at),
          statusCode: p.data.status_code,
          event: p.data.event,
        });
      }
      return { items, skipped, next: nextCursor(response.headers.link) };
    },

    async redeliver(id) {
      const authorization = await auth.appAuthorization();
      try {
        await request('POST /app/hook/deliveries/{delivery_id}/attempts', {
          delivery_id: id,
          headers: { authorization },
          request: { signal: AbortSignal.timeout(timeoutMs) },
        });
      } catch (err) {
        throw wrap(err, `Could not redeliver GitHub webhook delivery ${id}`);
      }
    },
  };
}
