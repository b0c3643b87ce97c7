/**
 * The idempotency key store on the real PostgreSQL: insert-first claims (one winner among concurrent
 * requests), replays of the stored answer, refusal of another request under a used key, organisation
 * scoping, take-over of an abandoned key with its first update id, expiry and purge.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import {
  createIdempotencyKeyStore,
  type ClaimRequest,
  type IdempotencyKeyStore,
} from '../../../stores/idempotency-keys';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let store: IdempotencyKeyStore;
let acme: string;
let globex: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('idempotency_keys'));
  store = createIdempotencyKeyStore(pool);
  const keys = createApiKeyStore(pool);
  acme = (await keys.authenticate((await keys.create('acme')).key))!.id;
  globex = (await keys.authenticate((await keys.create('globex')).key))!.id;
});
afterAll(async () => {
  await pool.end();
});

const hash = (body: string) => createHash('sha256').update(body).digest();
const request = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  organisationId: acme,
  key: randomUUID(),
  requestHash: hash('submit #1'),
  newUpdateId: `submitPullRequest/${randomUUID()}`,
  ...over,
});
const answer = { statusCode: 200, contentType: 'application/json; charset=utf-8', body: '{}' };

test('a first claim wins; the same request then waits, then gets the stored answer', async () => {
  const r = request();
  expect(await store.claim(r)).toEqual({ kind: 'claimed', updateId: r.newUpdateId, takenOver: false });
  expect(await store.claim({ ...r, newUpdateId: 'other' })).toEqual({ kind: 'in_progress' });
  const ref = { organisationId: acme, key: r.key, updateId: r.newUpdateId };
  expect(await store.complete(ref, answer)).toBe(true);
  expect(await store.claim({ ...r, newUpdateId: 'other' })).toEqual({ kind: 'replay', answer });
  // Answered once: a second completion (a late attempt) changes nothing.
  expect(await store.complete(ref, { ...answer, statusCode: 404, body: 'late' })).toBe(false);
  expect(await store.claim(r)).toEqual({ kind: 'replay', answer });
});

test('an error answer is replayed as it was sent', async () => {
  const r = request();
  await store.claim(r);
  const notFound = { statusCode: 404, contentType: 'text/plain; charset=utf-8', body: 'No queue.' };
  await store.complete({ organisationId: acme, key: r.key, updateId: r.newUpdateId }, notFound);
  expect(await store.claim(r)).toEqual({ kind: 'replay', answer: notFound });
});

test('another request under a used key is refused, pending or done', async () => {
  const r = request();
  await store.claim(r);
  expect(await store.claim({ ...r, requestHash: hash('submit #2') })).toEqual({ kind: 'mismatch' });
  await store.complete({ organisationId: acme, key: r.key, updateId: r.newUpdateId }, answer);
  expect(await store.claim({ ...r, requestHash: hash('submit #2') })).toEqual({ kind: 'mismatch' });
});

test('keys belong to one organisation: the same key elsewhere is a key of its own', async () => {
  const r = request();
  await store.claim(r);
  const other = await store.claim({
    ...r,
    organisationId: globex,
    requestHash: hash('other'),
    newUpdateId: 'g',
  });
  expect(other).toEqual({ kind: 'claimed', updateId: 'g', takenOver: false });
});

test('of 20 concurrent claims of one key exactly one is claimed', async () => {
  const r = request();
  const claims = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store.claim({ ...r, newUpdateId: `submitPullRequest/${i}` })),
  );
  expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
  expect(claims.filter((c) => c.kind === 'in_progress')).toHaveLength(19);
});

test('a released key is taken over by the retry with the first update id', async () => {
  const r = request();
  await store.claim(r);
  const ref = { organisationId: acme, key: r.key, updateId: r.newUpdateId };
  await store.release(ref);
  const retry = await store.claim({ ...r, newUpdateId: 'fresh' });
  expect(retry).toEqual({ kind: 'claimed', updateId: r.newUpdateId, takenOver: true });
  // Held again: a third attempt waits.
  expect(await store.claim({ ...r, newUpdateId: 'third' })).toEqual({ kind: 'in_progress' });
  // Another request cannot take it over.
  await store.release(ref);
  expect(await store.claim({ ...r, requestHash: hash('other') })).toEqual({ kind: 'mismatch' });
});

test('a key whose lease ran out (its process died) is taken over', async () => {
  const noLease = createIdempotencyKeyStore(pool, { leaseMs: 0 });
  const r = request();
  await noLease.claim(r);
  expect(await noLease.claim({ ...r, newUpdateId: 'fresh' })).toEqual({
    kind: 'claimed',
    updateId: r.newUpdateId,
    takenOver: true,
  });
});

test('an expired key counts as absent: a new request under it gets a new update id; purge deletes it', async () => {
  const expiring = createIdempotencyKeyStore(pool, { ttlMs: 0 });
  const r = request({ organisationId: globex });
  await expiring.claim(r);
  await expiring.complete({ organisationId: globex, key: r.key, updateId: r.newUpdateId }, answer);
  const again = await expiring.claim({ ...r, requestHash: hash('another'), newUpdateId: 'new-id' });
  expect(again).toEqual({ kind: 'claimed', updateId: 'new-id', takenOver: false });
  expect(await expiring.purgeExpired()).toBeGreaterThanOrEqual(1);
  const { rows } = await pool.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [r.key]);
  expect(rows).toHaveLength(0);
  // Live keys stay.
  const live = request();
  await store.claim(live);
  await store.purgeExpired();
  expect(await store.claim(live)).toEqual({ kind: 'in_progress' });
});

test('keys longer than 255 characters are refused by the table', async () => {
  await expect(store.claim(request({ key: 'k'.repeat(256) }))).rejects.toThrow(/check constraint/);
});
