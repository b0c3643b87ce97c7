/**
 * Regression (issue 27, docs/known-issues.md): the queue's side-effects call, a local activity, must
 * never hold its workflow task until the worker "heartbeats" it. A local activity still running at 80 %
 * of the task timeout (8 s) makes the worker complete the task empty and take a new one, and on replay
 * Temporal's core gives the activations after such a heartbeat another workflow time than they had
 * live; the queue decides on that time (its signal rate, its backoffs, the engine's ticks), so its
 * history could not be replayed: the multi-replica run's queue wedged on "[TMPRL1100] Nondeterminism
 * error: Activity id of scheduled event '10' does not match activity id of activity command '11'" once
 * a worker without it in its cache took it.
 *
 * Since stop 43 the call is a regular activity (REGULAR_SIDE_EFFECTS_PATCH: a local call's resolution
 * may also reach the workflow in another activation on replay, with no heartbeat, which wedged a queue
 * in a 20-minute continuous run); the queue's history must hold no local activity marker at all.
 *
 * A real queue workflow on a real worker with the real activities; its first call carries a transition
 * for the event log (carried over, as after a PostgreSQL outage) while the log's table is locked, so
 * the append waits for as long as the test holds the lock: past the heartbeat point for the old call.
 * The lock is released once the history shows how the call ended (its marker, or a heartbeat). The
 * old call (1 minute to run) heartbeat the task; the bounded one ends in 3 s, its effects go on by
 * themselves, and the transition is stored. Then the history must replay.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../../activities';
import { QUEUE_WORKFLOW_TYPE, queueWorkflowId, type QueueKey } from '../../../contract';
import type { TransitionEvent } from '../../../events/types';
import { createLocalGitHost } from '../../../git/local-git-host';
import { createProcessBroker } from '../../../platform/process-runner';
import { createPool } from '../../../stores/db';
import { initialCarried, type Carried } from '../../../workflows/queue/carried';
import { requireTestEnv } from '../../support/env';
import { waitFor } from '../../support/pr-waiting';
import { replayRunHistories, describeReplayFailures } from '../../support/run-replay';

type Event = temporal.api.history.v1.IHistoryEvent;
const type = (e: Event | undefined) => String(e?.eventType);
const ms = (e: Event | undefined) =>
  Number(e?.eventTime?.seconds ?? NaN) * 1000 + Math.floor((e?.eventTime?.nanos ?? 0) / 1e6);

/**
 * Heartbeats: a task completed 8 s (80 % of its 10 s timeout) or more after it started, the next
 * scheduled at once. (Completed and scheduled at once also happens in milliseconds around updates.)
 */
function heartbeats(events: Event[]): number {
  return events.filter((e, i) => {
    if (!/WORKFLOW_TASK_COMPLETED|^7$/.test(type(e))) return false;
    if (!/WORKFLOW_TASK_SCHEDULED|^5$/.test(type(events[i + 1]))) return false;
    const startedId = String(e.workflowTaskCompletedEventAttributes?.startedEventId);
    return ms(e) - ms(events.find((s) => String(s.eventId) === startedId)) >= 8_000;
  }).length;
}
/** Local activity calls: their markers (the patch's own marker is another kind). */
const localCalls = (events: Event[]) =>
  events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
/** Regular side-effects calls scheduled (Temporal writes a started event only with the result). */
const regularCalls = (events: Event[]) =>
  events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'performSideEffects')
    .length;

test("a side-effects call held up by the database never heartbeats the queue's workflow task, and the history replays", async () => {
  const pool = createPool(requireTestEnv('TEST_DATABASE_URL'), { max: 4 });
  const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const native = await NativeConnection.connect({ address });
  const gitRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-heartbeat-'));
  const broker = createProcessBroker();
  const taskQueue = `side-effects-heartbeat-${randomUUID()}`;
  const key: QueueKey = {
    organisationId: randomUUID(),
    repo: { host: 'github.com', owner: 'acme', name: `widgets-${randomUUID().slice(0, 8)}` },
    targetBranch: 'main',
  };
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [
    key.organisationId,
    `hb-${key.organisationId.slice(0, 8)}`,
  ]);
  const submissionId = randomUUID();
  const transition: TransitionEvent = {
    organisationId: key.organisationId,
    repo: key.repo,
    targetBranch: key.targetBranch,
    prNumber: 1,
    submissionId,
    seq: 1,
    from: null,
    to: 'pending',
    reason: 'submitted',
    testRunId: null,
    batch: [],
    isBisection: false,
    testBranch: null,
    testBranchSha: null,
    at: Date.now(),
    title: 'a PR',
    author: 'someone',
    headSha: 'a'.repeat(40),
  };
  const carried: Carried = { ...initialCarried(), unstored: [transition] };
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
    activities: createActivities({
      workerIdentity: 'heartbeat-test',
      gitHost: createLocalGitHost({ root: gitRoot, runner: broker }),
      client,
      taskQueue,
      pool,
      allowPrivateWebhookUrls: true,
    }),
  });
  const running = worker.run();
  // The event log's table locked: the call's append waits until the test lets it go.
  const locker = await pool.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE pr_transitions IN ACCESS EXCLUSIVE MODE');
  let locked = true;
  const since = new Date(Date.now() - 1_000);
  const workflowId = queueWorkflowId(key);
  try {
    const handle = await client.workflow.start(QUEUE_WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      args: [{ key, config: {}, carried, appendMaximumIntervalMs: 1_000 }],
    });
    const events = async () => (await handle.fetchHistory()).events ?? [];
    // How the first call went: a regular activity scheduled (stop 43), its marker (a local call, bounded,
    // failed), or the task heartbeat (the unbounded local call).
    await waitFor('the first call to be scheduled, end or heartbeat the task', async () => {
      const e = await events();
      return regularCalls(e) > 0 || localCalls(e) > 0 || heartbeats(e) > 0;
    });
    await locker.query('COMMIT');
    locked = false;
    // The transition reaches the log whichever way the call went.
    await waitFor('the transition in the event log', async () => {
      const { rows } = await pool.query('SELECT 1 FROM pr_transitions WHERE submission_id = $1', [
        submissionId,
      ]);
      return rows.length > 0;
    });
    expect(heartbeats(await events())).toBe(0);
    // No local call at all (REGULAR_SIDE_EFFECTS_PATCH): a local call's resolution may reach the
    // workflow in another activation on replay than it did live, which wedged a queue under load.
    expect(localCalls(await events())).toBe(0);
    const replay = await replayRunHistories({
      temporalAddress: address,
      workflowBundle: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      databaseUrl: requireTestEnv('TEST_DATABASE_URL'),
      organisations: [key.organisationId],
      since,
      keepDir: path.join(requireTestEnv('TEST_TMP'), 'replay-failed'),
    });
    expect(describeReplayFailures(replay.failed)).toBe('');
    expect(replay.replayed.map((r) => r.workflowId)).toEqual([workflowId]);
  } finally {
    if (locked) await locker.query('ROLLBACK').catch(() => undefined);
    locker.release();
    await client.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    broker.close();
    await pool.end();
    fs.rmSync(gitRoot, { recursive: true, force: true });
  }
}, 120_000);
