/**
 * `Idempotency-Key` on the merge queue's change endpoints (routes with `config.change`), over the
 * durable key store (stores/idempotency-keys.ts).
 *
 * Rules:
 * - No header: nothing happens here; the request gets a fresh update id (update-id.ts).
 * - A key is 1–255 printable ASCII characters (the route's header schema; otherwise 400 naming it),
 *   scoped to the caller's organisation and kept for 24 hours (RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS).
 * - Same key, same endpoint and body as parsed (update-id.ts `requestHash`): the first answer, status
 *   and body, is sent again with `Idempotent-Replayed: true`, and nothing is applied.
 * - Same key, another request: 422, nothing applied.
 * - Same key while its first request is still being applied: 409 with `Retry-After: 1` (we answer at
 *   once rather than hold a connection; the IETF draft's choice). A key whose request's process died
 *   is taken over by the next retry after a lease of 2 minutes, with the same update id.
 * - What is stored is every answer the request got except "try again later" ones (5xx and 429): those
 *   release the key, so a retry applies the request, under the same update id, which Temporal
 *   deduplicates if the first attempt got through after all.
 * - Checks run after authentication, validation and the repository check (root hooks run first), so a
 *   refused request never holds a key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  type IdempotencyKeyStore,
  type KeyRef,
} from '../../../stores/idempotency-keys';
import { conflict, unavailable, unprocessable } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import { freshUpdateId, requestHash, type ChangeEndpoint } from './update-id';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks a change endpoint: it honours Idempotency-Key. */
    change?: ChangeEndpoint;
  }
  interface FastifyRequest {
    /** The key this request holds while it is applied (null without a header). */
    idempotencyKey: KeyRef | null;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

const KEY_PATTERN = new RegExp(`^[\\x20-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);

/** The header schema of every change route (validation and the OpenAPI header parameter). */
export const IdempotencyHeaders = z.looseObject({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .regex(KEY_PATTERN, { message: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters` })
    .optional()
    .meta({
      description:
        'Makes a retry safe: the first answer to a request with this key (same body) is replayed, for 24 hours by default; the same key with another body is refused (422), and while the first request is still being applied a retry gets 409. A UUID per request is a good key.',
    }),
});

const keyReused = () =>
  unprocessable(
    'Header Idempotency-Key was already used for a different request; send a new key for a new request.',
  );
const keyBusy = () =>
  conflict(
    'A request with this Idempotency-Key is still being applied; retry it after that request has answered.',
  );
const storeDown = () =>
  unavailable('Idempotency keys cannot be checked right now; retry the request with the same key.');

/** Purges of expired keys run at most this often per process, after a claim. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export function registerIdempotency(app: FastifyInstance, store: IdempotencyKeyStore): void {
  app.decorateRequest('idempotencyKey', null);
  let lastPurge = 0;
  const purgeNowAndThen = () => {
    const now = Date.now();
    if (now - lastPurge < PURGE_INTERVAL_MS) return;
    lastPurge = now;
    store
      .purgeExpired()
      .catch((err: unknown) => app.log.warn({ err }, 'could not purge expired idempotency keys'));
  };

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const endpoint = request.routeOptions.config.change;
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (endpoint === undefined || typeof key !== 'string') return;
    const organisationId = organisationOf(request).id;
    let claim;
    try {
      claim = await store.claim({
        organisationId,
        key,
        requestHash: requestHash(endpoint, request.body),
        newUpdateId: freshUpdateId(endpoint),
      });
    } catch (err) {
      request.log.warn({ err }, 'idempotency key claim failed');
      throw storeDown();
    }
    purgeNowAndThen();
    switch (claim.kind) {
      case 'claimed':
        request.idempotencyKey = { organisationId, key, updateId: claim.updateId };
        return;
      case 'replay': {
        const { statusCode, contentType, body } = claim.answer;
        reply.code(statusCode).header(REPLAYED_HEADER, 'true');
        if (contentType !== null) reply.type(contentType);
        return reply.send(body);
      }
      case 'mismatch':
        throw keyReused();
      case 'in_progress':
        reply.header('retry-after', '1');
        throw keyBusy();
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotencyKey;
    if (held === null) return payload;
    request.idempotencyKey = null;
    const retryLater = reply.statusCode >= 500 || reply.statusCode === 429;
    try {
      if (retryLater || typeof payload !== 'string') await store.release(held);
      else {
        const contentType = reply.getHeader('content-type');
        await store.complete(held, {
          statusCode: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: payload,
        });
      }
    } catch (err) {
      // The answer still goes out; the key stays pending until its lease ends, then a retry takes it
      // over with the same update id.
      request.log.warn({ err }, 'could not record the answer of an idempotency key');
    }
    return payload;
  });
}
