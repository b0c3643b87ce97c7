/**
 * No event lost while PostgreSQL is down, on the real stack: a worker in this process (the bundled
 * workflows, the real activities), the Temporal dev server, real git, a local webhook receiver, and a
 * PostgreSQL cluster of this test's own that it stops and starts again.
 *
 * The outage is longer than the time after which b471ab5 gave up: it gave an append 30 attempts (here,
 * with the test's backoff cap of 300 ms, about 9 s; in production about 24 min) and then dropped the
 * drain's transitions, and it counted delivery attempts that failed on our own database against the
 * webhook's budget (3 here), so the deliveries under way ended `failed` without reaching the receiver.
 *
 * Shown: the queue keeps working through the outage and continues as new during it (the transitions it
 * could not store cross runs in its carried state); afterwards every transition the PR workflows saw is
 * in pr_transitions exactly once, and every delivery reaches the receiver, svix-verified, exactly once,
 * with no attempt recorded for the outage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'svix';
import type { TransitionEvent } from '../../../events/types';
import { actionsOf } from '../../../webhooks/pull-request-events';
import { createSubscriptionStore } from '../../../webhooks/store/subscriptions';
import type { PrState } from '../../../engine';
import { cancelUpdate } from '../../../contract';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';
import { executeQueueUpdate } from '../../support/queue-updates';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { startScratchCluster, type ScratchCluster } from './scratch-cluster';

/** The test's cap on the pause between append retries (QueueWorkflowInput.appendMaximumIntervalMs). */
const APPEND_MAXIMUM_INTERVAL_MS = 300;
/** When b471ab5 would have dropped a drain's transitions under that cap: 30 attempts. */
const OLD_APPEND_GIVE_UP_MS = 30 * APPEND_MAXIMUM_INTERVAL_MS;
const OUTAGE_MS = OLD_APPEND_GIVE_UP_MS + 4_000;
/**
 * Low enough that the run open at the outage passes it within the two updates sent during it: the
 * queue checks it only when it wakes, and with its side effects and admission reads as local
 * activities (issue 25) it may sleep through the outage just past 15 events (waiting on the gated run).
 */
const CONTINUE_AS_NEW_AFTER = 10;
/** Three attempts 3 s apart, all within the outage: b471ab5 spent the last ones on it and gave up. */
const WEBHOOK_RETRY = {
  initialIntervalMs: 3_000,
  backoffCoefficient: 1,
  maximumIntervalMs: 3_000,
  maximumAttempts: 3,
  requestTimeoutMs: 5_000,
  storeMaximumIntervalMs: 1_000,
};

let cluster: ScratchCluster;
let h: QueueHarness;
let receiver: Receiver;

beforeAll(async () => {
  cluster = await startScratchCluster('outage');
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await cluster?.close();
});

interface StoredTransition {
  submission_id: string;
  seq: number;
  from_state: PrState | null;
  to_state: PrState;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('PostgreSQL down for longer than the old give-up time: every transition and every delivery arrives once', async () => {
  h = await startQueueHarness({
    // `started` says the command runs: the run's content is on the executor, nothing left needs PostgreSQL.
    command: 'touch $GATE/started; while [ ! -e $GATE/go ]; do sleep 0.1; done',
    databaseUrl: cluster.url,
    webhookRetry: WEBHOOK_RETRY,
    // Every retry against the stopped database is an SDK warning.
    logLevel: 'ERROR',
  });
  const { secret } = await createSubscriptionStore(h.pool).create(h.key.organisationId, {
    url: receiver.url('/hook'),
    description: 'outage',
    eventTypes: [],
    enabled: true,
  });
  receiver.script('/hook', { statuses: [500] });
  // Continue-as-new every few events, so unstored transitions must cross runs in the carried state.
  await h.createQueue(
    { concurrency: 1 },
    {},
    { appendMaximumIntervalMs: APPEND_MAXIMUM_INTERVAL_MS, continueAsNewAfterEvents: CONTINUE_AS_NEW_AFTER },
  );
  const runId = async () => (await h.client.workflow.getHandle(h.workflowId).describe()).runId;
  for (const n of [1, 2, 3]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });

  const timelines = async () => {
    const records = await Promise.all([1, 2, 3].map((n) => h.pr(n)));
    return records.flatMap((r) => (r ? [r] : []));
  };
  const stored = async () =>
    (
      await h.pool.query<StoredTransition>(
        'SELECT submission_id, seq, from_state, to_state FROM pr_transitions ORDER BY submission_id, seq',
      )
    ).rows;
  const expectedDeliveries = async () =>
    (await timelines()).reduce(
      (sum, r) => sum + r.timeline.reduce((s, t) => s + actionsOf(t as TransitionEvent).length, 0),
      0,
    );

  // Before the outage: PR 1 testing (held by the gate), PR 3 waiting; every delivery so far was tried
  // once and refused by the receiver (one of its three attempts used).
  await h.submit(1);
  await h.submit(3);
  await h.waitFor('PR 1 testing', async () => (await h.pr(1))?.state === 'testing');
  await h.waitFor("PR 1's command running", () =>
    Promise.resolve(fs.existsSync(path.join(h.gate, 'started'))),
  );
  await h.waitFor('the first attempt of every delivery', async () => {
    const { rows } = await h.pool.query<{ attempts: number }>('SELECT attempts FROM webhook_deliveries');
    return rows.length === (await expectedDeliveries()) && rows.every((r) => r.attempts >= 1);
  });

  await cluster.stop();
  const outageStarted = Date.now();
  const runAtOutage = await runId();
  receiver.script('/hook', { statuses: [200] });
  const beforeOutage = receiver.received('/hook').length;

  // While PostgreSQL is down the queue goes on (a submission, a cancellation, a continue-as-new, then
  // a run that passes) and keeps every transition it cannot store.
  await h.submit(2);
  await executeQueueUpdate(h.client.workflow.getHandle(h.workflowId), cancelUpdate, { args: [{ pr: 3 }] });
  await h.waitFor('PR 2 queued and PR 3 cancelled', async () => {
    const [two, three] = [await h.pr(2), await h.pr(3)];
    return two?.state === 'pending' && three?.state === 'cancelled';
  });
  await h.waitFor('a continue-as-new during the outage', async () => (await runId()) !== runAtOutage);
  // PR 1's command finishes during the outage. Its report travels executor → API → Temporal; the
  // API reaches the job's task token without PostgreSQL only when it handed out the job itself, and the
  // run's record needs PostgreSQL anyway, so its verdict may come once the store is back
  // (docs/known-issues.md) — waited for below, with every transition and delivery counted.
  fs.writeFileSync(path.join(h.gate, 'go'), '');
  await sleep(OUTAGE_MS - (Date.now() - outageStarted));
  // Nothing can be sent without the delivery rows.
  expect(receiver.received('/hook')).toHaveLength(beforeOutage);
  await cluster.start();

  expect((await h.settled(1, 60_000)).state).toBe('merged');
  expect((await h.settled(2, 60_000)).state).toBe('merged');
  const records = await timelines();
  const transitionCount = records.reduce((s, r) => s + r.timeline.length, 0);
  const expected = await expectedDeliveries();
  const accepted = () => receiver.received('/hook').filter((r) => r.status === 200);
  // On a timeout the assertions below say what is missing.
  await h
    .waitFor(
      'every transition stored and every delivery accepted',
      async () => (await stored()).length === transitionCount && accepted().length >= expected,
      30_000,
    )
    .catch(() => undefined);
  await sleep(1_000);

  // Transitions: exactly the PR workflows' timelines, numbered 1, 2, 3… per submission.
  const rows = await stored();
  for (const record of records) {
    expect(rows.filter((r) => r.submission_id === record.id)).toEqual(
      record.timeline.map((t, i) => ({
        submission_id: record.id,
        seq: i + 1,
        from_state: t.from,
        to_state: t.to,
      })),
    );
  }
  expect(rows).toHaveLength(transitionCount);

  // Deliveries: one accepted request per delivery, each svix-verified, each event once.
  const requests = accepted();
  const ids = requests.map((r) => r.headers['svix-id']);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toHaveLength(expected);
  const verifier = new Webhook(secret);
  const events = requests.map(
    (r) => verifier.verify(r.body, r.headers) as { type: string; pr_number: number },
  );
  const expectedEvents = records.flatMap((r) =>
    r.timeline.flatMap((t) => actionsOf(t as TransitionEvent).map((a) => `${r.prNumber} pull_request.${a}`)),
  );
  expect(events.map((e) => `${e.pr_number} ${e.type}`).sort()).toEqual(expectedEvents.sort());
  const deliveries = await h.pool.query<{ id: string; status: string; attempts: number }>(
    'SELECT id, status, attempts FROM webhook_deliveries ORDER BY id',
  );
  expect(deliveries.rows.map((d) => d.status)).toEqual(deliveries.rows.map(() => 'succeeded'));
  expect(deliveries.rows.map((d) => d.id)).toEqual([...ids].sort());
  // Only the receiver's answers were recorded: refusals before the outage, then one success.
  const attempts = await h.pool.query<{ status_code: number | null }>(
    'SELECT status_code FROM webhook_attempts',
  );
  expect(attempts.rows.every((a) => a.status_code === 500 || a.status_code === 200)).toBe(true);
  expect(attempts.rows.filter((a) => a.status_code === 200)).toHaveLength(expected);
}, 150_000);
