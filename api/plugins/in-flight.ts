/**
 * Caps on the heavy requests one organisation may have running at once in this process: uploads
 * (POST /v1/flaky-tests/upload: parsing and one ingest transaction) and list queries (the flaky-test
 * lists and reads, listPullRequests). One more than the cap answers a LimitExceeded (429,
 * Retry-After, one sentence) at once instead of queueing behind the others, so an organisation that
 * floods can fill only its own slots and never the database pool or the parser threads everyone shares.
 *
 * Which routes count is the table below, kept here rather than in each route so the rule is read in
 * one place. The handler of each is wrapped when the route is added (an onRoute hook): the slot is
 * taken when the handler starts and given back in `finally`, so every path out of the handler (an
 * answer, a thrown error, a client that went away) releases it exactly once.
 *
 * An upload that acts only on a repository's public id (a fork's bundle PUT: anyone who has the id
 * may have asked for its URL) takes a `public-upload` slot instead, from a small cap of its own
 * (issue 24), so strangers with the public id can fill only those and never the slots of the
 * organisation's keyed uploads.
 *
 * Invariants: registered before the routes (onRoute only sees routes added after it) and after the
 * auth hook; the guarded routes all need a key, so the organisation is known in the handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LimitExceeded } from './limit-exceeded';
import { byPublicIdCaller } from './request-context';

export type InFlightKind = 'upload' | 'public-upload' | 'list';

export interface InFlightCaps {
  /** Uploads one organisation may have running at once. */
  readonly uploads: number;
  /** List and read queries one organisation may have running at once. */
  readonly lists: number;
  /** Uploads by public-id callers one organisation may have running at once; 1 when absent. */
  readonly publicIdUploads?: number;
}

/**
 * Defaults of RAILYARD_ORG_UPLOADS_IN_FLIGHT, RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT and
 * RAILYARD_PUBLIC_ID_UPLOADS_IN_FLIGHT.
 */
export const DEFAULT_IN_FLIGHT_CAPS = {
  uploads: 4,
  lists: 8,
  publicIdUploads: 1,
} as const satisfies InFlightCaps;

/** `METHOD url` of every route that counts, with what it counts as. */
export const GUARDED_ROUTES: ReadonlyMap<string, InFlightKind> = new Map([
  ['POST /v1/flaky-tests/upload', 'upload'],
  // Public (a signed URL), but its preHandler sets the upload's organisation before the handler runs.
  ['PUT /v1/metrics/bundles/:uploadId', 'upload'],
  ['POST /v1/flaky-tests/list-failing-tests', 'list'],
  ['POST /v1/flaky-tests/get-test-details', 'list'],
  ['GET /v1/flaky-tests/tests/:test_id', 'list'],
  ['POST /v1/flaky-tests/list-unhealthy-tests', 'list'],
  ['POST /v1/flaky-tests/list-quarantined-tests', 'list'],
  ['GET /v1/flaky-tests/tickets/:ticket', 'list'],
  ['POST /v1/listPullRequests', 'list'],
]);

/** A client that honours Retry-After comes back once; a slot is usually free by then. */
const RETRY_AFTER_SECONDS = 1;

function capOf(caps: InFlightCaps, kind: InFlightKind): number {
  switch (kind) {
    case 'upload':
      return caps.uploads;
    case 'public-upload':
      return caps.publicIdUploads ?? DEFAULT_IN_FLIGHT_CAPS.publicIdUploads;
    case 'list':
      return caps.lists;
  }
}

function refusal(kind: InFlightKind, slug: string, cap: number): LimitExceeded {
  switch (kind) {
    case 'upload':
      return new LimitExceeded(
        `Organisation ${slug} already has ${cap} upload${cap === 1 ? '' : 's'} in progress; retry after 1 second.`,
        RETRY_AFTER_SECONDS,
      );
    case 'public-upload':
      return new LimitExceeded(
        `Organisation ${slug} already has ${cap} upload${cap === 1 ? '' : 's'} made with a public repository id in progress; retry after 1 second.`,
        RETRY_AFTER_SECONDS,
      );
    case 'list':
      return new LimitExceeded(
        `Organisation ${slug} already has ${cap} list quer${cap === 1 ? 'y' : 'ies'} in progress; retry after 1 second.`,
        RETRY_AFTER_SECONDS,
      );
  }
}

/** Counts per (kind, organisation id); an entry is deleted when it drops to 0, so idle orgs cost nothing. */
export function createInFlightCounter(caps: InFlightCaps) {
  const counts = new Map<string, number>();
  return {
    /** Takes a slot, or returns the refusal without taking one. */
    acquire(kind: InFlightKind, organisation: { id: string; slug: string }): LimitExceeded | null {
      const key = `${kind}:${organisation.id}`;
      const now = counts.get(key) ?? 0;
      const cap = capOf(caps, kind);
      if (now >= cap) return refusal(kind, organisation.slug, cap);
      counts.set(key, now + 1);
      return null;
    },
    release(kind: InFlightKind, organisation: { id: string }): void {
      const key = `${kind}:${organisation.id}`;
      const now = (counts.get(key) ?? 1) - 1;
      if (now <= 0) counts.delete(key);
      else counts.set(key, now);
    },
    /** For tests and metrics: how many are running now. */
    running(kind: InFlightKind, organisationId: string): number {
      return counts.get(`${kind}:${organisationId}`) ?? 0;
    },
  };
}

export function registerInFlightCaps(app: FastifyInstance, caps: InFlightCaps): void {
  const counter = createInFlightCounter(caps);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Fastify adds a HEAD route for every GET with the GET's handler; it runs the same query.
    const kind = methods
      .map((m) => GUARDED_ROUTES.get(`${m === 'HEAD' ? 'GET' : m} ${route.url}`))
      .find((k) => k !== undefined);
    if (kind === undefined) return;
    const handler = route.handler;
    route.handler = async function guarded(
      this: FastifyInstance,
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<unknown> {
      const organisation = request.organisation;
      // The auth hook has run for every guarded route; without an organisation there is nothing to count.
      if (!organisation) return handler.call(this, request, reply);
      const counted = kind === 'upload' && byPublicIdCaller(request) ? 'public-upload' : kind;
      const refused = counter.acquire(counted, organisation);
      if (refused) throw refused;
      try {
        return await handler.call(this, request, reply);
      } finally {
        counter.release(counted, organisation);
      }
    };
  });
}
