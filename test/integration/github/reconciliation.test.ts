/**
 * The GitHub reconciliation activities (activities/github-reconciliation.ts over
 * github/inbound/reconciliation.ts) on the real PostgreSQL, with an in-memory delivery log standing in
 * for `GET /app/hook/deliveries` (keyset cursors, newest first, like GitHub's) and a recording hinter:
 * - redelivery asks only for deliveries none of whose attempts succeeded and that are not stored,
 *   oldest first, once per guid; the high-water mark keeps a second run from asking again; a listing
 *   stopped by its page bound resumes from its cursor; more missing deliveries than the per-run bound
 *   keep the mark; a cursor GitHub refuses restarts the listing;
 * - deliveries stored but never handled are acted on once they are a minute old;
 * - pruning deletes deliveries older than 14 days, bounded per run.
 * The end-to-end path (real queue workflows, the Schedule's workflow, a GitHub stand-in that
 * redelivers over HTTP) is in queue-hints.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Pool } from 'pg';
import { GitHubAuthError } from '../../../github/app/app-auth';
import type { HookDeliveriesApi, HookDelivery } from '../../../github/app/hook-deliveries-api';
import type { HintResult, QueueHinter } from '../../../github/inbound/queue-hints';
import { createGitHubReconciliationActivities } from '../../../activities/github-reconciliation';
import type { ReconciliationLimits } from '../../../github/inbound/reconciliation';
import { createWebhookDeliveryStore } from '../../../github/store/webhook-deliveries';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('github_reconciliation'));
});
afterAll(async () => {
  await pool?.end();
});

const NOW = new Date('2026-11-24T12:00:00Z');
/** The activities' clock; each test starts at NOW and moves it on between runs. */
let clock = NOW;
const tick = (minutes: number) => (clock = new Date(clock.getTime() + minutes * 60_000));
const minutesAgo = (m: number) => new Date(clock.getTime() - m * 60_000);
beforeEach(() => {
  clock = NOW;
});
let nextAppId = 100;
let nextId = 1_000_000;

const store = () => createWebhookDeliveryStore(pool);
const stored = (guid: string) =>
  store().record({
    deliveryId: guid,
    event: 'ping',
    action: null,
    installationId: null,
    repository: null,
    payload: '{}',
  });

/**
 * GitHub's delivery log: attempts newest first, each cursor naming the last id of the page before. A
 * redelivery reaches railyard (the guid is stored) and is listed as a new successful attempt.
 */
function deliveryLog(perPage = 3) {
  const attempts: HookDelivery[] = [];
  const pages: (string | null)[] = [];
  const redelivered: number[] = [];
  /** Records an attempt `minutes` before the clock (ids grow with time, as GitHub's do). */
  const attempt = (guid: string, minutes: number, statusCode: number) => {
    const a = { id: ++nextId, guid, deliveredAt: minutesAgo(minutes), statusCode, event: 'pull_request' };
    attempts.push(a);
    return a;
  };
  const log: HookDeliveriesApi = {
    page(cursor) {
      pages.push(cursor);
      if (cursor !== null && !/^v1_\d+$/.test(cursor))
        return Promise.reject(new GitHubAuthError('Could not list: GitHub answered 422: cursor.', 422));
      const newestFirst = [...attempts].sort((a, b) => b.id - a.id);
      const from = cursor === null ? newestFirst : newestFirst.filter((a) => a.id < Number(cursor.slice(3)));
      const items = from.slice(0, perPage);
      const next = from.length > perPage ? `v1_${items.at(-1)!.id}` : null;
      return Promise.resolve({ items, skipped: 0, next });
    },
    async redeliver(id) {
      redelivered.push(id);
      const original = attempts.find((a) => a.id === id)!;
      await stored(original.guid);
      attempt(original.guid, 0, 200);
    },
  };
  return { log, attempts, pages, redelivered, attempt };
}

function recordingHinter() {
  const reconciled: string[] = [];
  const hinter: QueueHinter = {
    hintRepository: () => Promise.resolve({ hinted: 0, ended: 0, failed: 0, truncated: false }),
    reconcileHost(host): Promise<HintResult> {
      reconciled.push(host);
      return Promise.resolve({ hinted: 0, ended: 0, failed: 0, truncated: false });
    },
  };
  return { hinter, reconciled };
}

function activitiesWith(
  log: HookDeliveriesApi,
  limits: Partial<ReconciliationLimits> = {},
  appId = ++nextAppId,
) {
  return createGitHubReconciliationActivities({
    pool,
    client: {} as Client,
    namespace: 'default',
    settings: { appId, apiUrl: 'http://127.0.0.1:1', host: 'github.com' },
    auth: { appAuthorization: () => Promise.reject(new Error('not used')) },
    limits,
    now: () => clock,
    deliveryLog: log,
    hinter: recordingHinter().hinter,
    onError: () => undefined,
  });
}

const run = <R>(fn: () => Promise<R>) => new MockActivityEnvironment().run(fn);

test('redelivers, oldest first and once per guid, what GitHub failed to deliver and we never stored', async () => {
  const gh = deliveryLog();
  const g = (n: string) => `guid-${n}-${randomUUID()}`;
  const [lost, lostTwice, late, receivedButTimedOut, fine, tooOld] = ['a', 'b', 'c', 'd', 'e', 'f'].map(
    g,
  ) as [string, string, string, string, string, string];
  gh.attempt(tooOld, 120, 0); // before the first run's look-back (1 hour)
  const lostAttempt = gh.attempt(lost, 50, 0);
  const lostTwiceFirst = gh.attempt(lostTwice, 40, 502);
  gh.attempt(lostTwice, 30, 0);
  gh.attempt(late, 20, 0);
  gh.attempt(late, 10, 200); // redelivered meanwhile and answered: nothing to do
  gh.attempt(receivedButTimedOut, 5, 0);
  await stored(receivedButTimedOut); // stored here, GitHub just did not get the answer in time
  gh.attempt(fine, 1, 200);

  const activities = activitiesWith(gh.log);
  const summary = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(gh.redelivered).toEqual([lostAttempt.id, lostTwiceFirst.id]);
  expect(summary).toEqual({
    listed: 7,
    skipped: 0,
    missing: 2,
    redelivered: 2,
    redeliveryFailed: 0,
    complete: true,
  });

  // The next run reads only what GitHub delivered since (less the overlap): the two redeliveries and
  // the newest delivery of the first run; nothing is asked again.
  tick(5);
  gh.redelivered.length = 0;
  const again = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(again).toMatchObject({ listed: 3, missing: 0, redelivered: 0, complete: true });
  expect(gh.redelivered).toEqual([]);
});

test('a listing stopped by the page bound resumes from its cursor, then the mark moves to its newest', async () => {
  const gh = deliveryLog(2);
  const appId = ++nextAppId;
  const lost = Array.from({ length: 7 }, (_, i) => gh.attempt(`resume-${i}-${randomUUID()}`, 50 - i, 0));
  const activities = activitiesWith(gh.log, { deliveryPagesPerRun: 2 }, appId);

  const first = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(first).toMatchObject({ listed: 4, complete: false, redelivered: 4 });
  expect(gh.redelivered).toEqual(lost.slice(3).map((a) => a.id));
  expect((await store().listing(appId))?.resume).toEqual({
    cursor: `v1_${lost[3]!.id}`,
    through: lost[6]!.deliveredAt,
  });

  // A delivery lost after the first run waits until the listing starts from the top again.
  tick(5);
  const newer = gh.attempt(`newer-${randomUUID()}`, 2, 0);
  gh.redelivered.length = 0;
  const second = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(second).toMatchObject({ listed: 3, complete: true, redelivered: 3 });
  expect(gh.pages.at(-2)).toBe(`v1_${lost[3]!.id}`);
  expect(gh.redelivered).toEqual(lost.slice(0, 3).map((a) => a.id));
  expect(await store().listing(appId)).toEqual({ listedThrough: lost[6]!.deliveredAt, resume: null });

  tick(5);
  gh.redelivered.length = 0;
  await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(gh.redelivered).toEqual([newer.id]);
});

test('more missing deliveries than one run may redeliver: the oldest go, the mark stays', async () => {
  const gh = deliveryLog(10);
  const appId = ++nextAppId;
  const lost = Array.from({ length: 3 }, (_, i) => gh.attempt(`capped-${i}-${randomUUID()}`, 30 - i, 0));
  const activities = activitiesWith(gh.log, { redeliveriesPerRun: 2 }, appId);
  const firstRunAt = clock;
  const first = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(first).toMatchObject({ missing: 3, redelivered: 2, complete: true });
  expect(gh.redelivered).toEqual([lost[0]!.id, lost[1]!.id]);
  expect(await store().listing(appId)).toBeNull();

  // The next run reads the same window; the redelivered ones are stored by then, the last one goes.
  tick(5);
  gh.redelivered.length = 0;
  const second = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(second).toMatchObject({ missing: 1, redelivered: 1 });
  expect(gh.redelivered).toEqual([lost[2]!.id]);
  expect((await store().listing(appId))?.listedThrough).toEqual(firstRunAt);
});

test('a resume cursor GitHub refuses is dropped and the listing starts from the newest', async () => {
  const gh = deliveryLog();
  const appId = ++nextAppId;
  await store().saveListing(appId, {
    listedThrough: minutesAgo(100),
    resume: { cursor: 'expired-cursor', through: minutesAgo(90) },
  });
  const lost = gh.attempt(`after-refusal-${randomUUID()}`, 10, 0);
  const summary = await run(() => activitiesWith(gh.log, {}, appId).redeliverFailedGitHubDeliveries());
  expect(gh.pages).toEqual(['expired-cursor', null]);
  expect(summary).toMatchObject({ complete: true, redelivered: 1 });
  expect(gh.redelivered).toEqual([lost.id]);
  expect(await store().listing(appId)).toEqual({ listedThrough: lost.deliveredAt, resume: null });
});

test('a failed redelivery is counted and reported, and the others are still asked for', async () => {
  const gh = deliveryLog();
  const asked: number[] = [];
  const a = gh.attempt(`fail-a-${randomUUID()}`, 20, 0);
  const b = gh.attempt(`fail-b-${randomUUID()}`, 10, 0);
  const errors: string[] = [];
  const activities = createGitHubReconciliationActivities({
    pool,
    client: {} as Client,
    namespace: 'default',
    settings: { appId: ++nextAppId, apiUrl: 'http://127.0.0.1:1', host: 'github.com' },
    auth: { appAuthorization: () => Promise.reject(new Error('not used')) },
    now: () => clock,
    deliveryLog: {
      page: (cursor) => gh.log.page(cursor),
      redeliver: (id) => {
        asked.push(id);
        return id === a.id
          ? Promise.reject(new GitHubAuthError('GitHub answered 502.', 502))
          : Promise.resolve();
      },
    },
    hinter: recordingHinter().hinter,
    onError: (_err, message) => errors.push(message),
  });
  const summary = await run(() => activities.redeliverFailedGitHubDeliveries());
  expect(asked).toEqual([a.id, b.id]);
  expect(summary).toMatchObject({ redelivered: 1, redeliveryFailed: 1 });
  expect(errors).toEqual([`could not redeliver GitHub webhook delivery ${a.guid} (pull_request)`]);
});

test('stored deliveries never handled are acted on once a minute old, oldest first, bounded', async () => {
  clock = new Date(); // compared with the database's received_at
  const ids = Array.from({ length: 3 }, () => `unhandled-${randomUUID()}`);
  for (const id of ids) {
    await store().record({
      deliveryId: id,
      event: 'pull_request',
      action: 'labeled',
      installationId: 1,
      repository: 'acme/app',
      payload: JSON.stringify({ action: 'labeled', installation: { id: 1 } }),
    });
  }
  // The first two were received ten minutes ago (the first earlier); the third just now, and its
  // receiver may still be acting on it.
  await pool.query(
    `UPDATE github_webhook_deliveries SET received_at = now() - interval '10 minutes'
       - CASE WHEN delivery_id = $1 THEN interval '1 second' ELSE interval '0' END
     WHERE delivery_id = ANY($2)`,
    [ids[0], [ids[0], ids[1]]],
  );
  const activities = activitiesWith(deliveryLog().log, { unhandledPerRun: 1 });
  const outcomes = async () =>
    Object.fromEntries(
      (
        await pool.query<{ delivery_id: string; outcome: string | null }>(
          'SELECT delivery_id, outcome FROM github_webhook_deliveries WHERE delivery_id = ANY($1)',
          [ids],
        )
      ).rows.map((r) => [r.delivery_id, r.outcome]),
    );
  expect(await run(() => activities.actOnUnhandledGitHubDeliveries())).toEqual({ acted: 1, failed: 0 });
  expect(await outcomes()).toEqual({ [ids[0]!]: 'not acted on', [ids[1]!]: null, [ids[2]!]: null });
  expect(await run(() => activities.actOnUnhandledGitHubDeliveries())).toEqual({ acted: 1, failed: 0 });
  expect(await run(() => activities.actOnUnhandledGitHubDeliveries())).toEqual({ acted: 0, failed: 0 });
  expect(await outcomes()).toEqual({ [ids[0]!]: 'not acted on', [ids[1]!]: 'not acted on', [ids[2]!]: null });
});

test('pruning deletes deliveries older than 14 days, at most the per-run bound', async () => {
  clock = new Date();
  const old = Array.from({ length: 5 }, () => `old-${randomUUID()}`);
  const recent = `recent-${randomUUID()}`;
  for (const id of [...old, recent]) await stored(id);
  await pool.query(
    "UPDATE github_webhook_deliveries SET received_at = now() - interval '15 days' WHERE delivery_id = ANY($1)",
    [old],
  );
  await pool.query(
    "UPDATE github_webhook_deliveries SET received_at = now() - interval '13 days' WHERE delivery_id = $1",
    [recent],
  );
  const activities = activitiesWith(deliveryLog().log, { prunePerRun: 3, pruneBatch: 2 });
  expect(await run(() => activities.pruneGitHubDeliveries())).toEqual({ deleted: 3 });
  expect((await store().storedIds([...old, recent])).size).toBe(3);
  expect(await run(() => activities.pruneGitHubDeliveries())).toEqual({ deleted: 2 });
  expect(await store().storedIds([...old, recent])).toEqual(new Set([recent]));
});

test('reconcileGitHubQueues hints the queues of the configured host', async () => {
  const { hinter, reconciled } = recordingHinter();
  const activities = createGitHubReconciliationActivities({
    pool,
    client: {} as Client,
    namespace: 'default',
    settings: { appId: ++nextAppId, apiUrl: 'http://127.0.0.1:1', host: 'ghe.example.com' },
    auth: { appAuthorization: () => Promise.reject(new Error('not used')) },
    hinter,
  });
  expect(await run(() => activities.reconcileGitHubQueues())).toMatchObject({ hinted: 0, failed: 0 });
  expect(reconciled).toEqual(['ghe.example.com']);
});
