/**
 * An executor's job across two API processes, each killed with SIGKILL at the worst moment (issue 27,
 * docs/known-issues.md): two real API servers (api/server.ts) behind one address (switch-proxy.ts), the
 * real executor process, the real worker activities and queue workflow, Temporal and PostgreSQL.
 *  1. Mid-claim: API A takes the job for the executor and dies while answering; the executor never
 *     sees the job. It must reach the executor again through API B within the same attempt (no
 *     heartbeat timeout, no retry), not wait for Temporal to give up on the attempt.
 *  2. Mid-run: A comes back, B (which handed the job out) dies while the command runs; the executor's
 *     heartbeats and its report go through A, which never held the job's task token in memory.
 * The run is then completed once, by its first attempt, and the PR merges.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/lib/ports';
import { tsNode } from '../../scripts/lib/ts-node';
import { testRunWorkflowId } from '../../contract';
import { createExecutorCredentials } from '../../test-runs/store/executor-credentials';
import { requireTestEnv } from '../support/env';
import { startExecutorProcess } from '../support/executor';
import { startQueueDeployment, type QueueDeployment, type QueueHarness } from '../support/queue-harness';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-api-replicas-'));

/** One API replica: the real server on a port of its own, restartable on it. */
function apiReplica(name: string, port: number, taskQueue: string) {
  let child: ChildProcess | null = null;
  const log = path.join(dir, `${name}.log`);
  return {
    port,
    log,
    async start(): Promise<void> {
      const out = fs.openSync(log, 'a');
      child = spawn(...tsNode('api/server.ts'), {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
          TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
          RAILYARD_TASK_QUEUE: taskQueue,
          RAILYARD_GIT_ROOT: path.join(dir, 'git'),
          RAILYARD_API_HOST: '127.0.0.1',
          RAILYARD_API_PORT: String(port),
          RAILYARD_LOG_LEVEL: 'info',
        },
        detached: true,
        stdio: ['ignore', out, out],
      });
      fs.closeSync(out);
      const started = child;
      for (;;) {
        if (started.exitCode !== null)
          throw new Error(`${name} exited: ${fs.readFileSync(log, 'utf8').slice(-2000)}`);
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    kill: () => killGroup(child),
  };
}

function killGroup(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}

let deployment: QueueDeployment;
let q: QueueHarness;
let proxy: SwitchProxy;
let executor: ChildProcess | null = null;
let apis: [ReturnType<typeof apiReplica>, ReturnType<typeof apiReplica>] | undefined;

beforeAll(async () => {
  deployment = await startQueueDeployment({
    startExecutor: async ({ taskQueue, pool, gates }) => {
      const replicas = (apis = [
        apiReplica('api-a', await freePort(), taskQueue),
        apiReplica('api-b', await freePort(), taskQueue),
      ]);
      await Promise.all(replicas.map((a) => a.start()));
      proxy = await startSwitchProxy(replicas.map((a) => a.port));
      const added = await createExecutorCredentials(pool).add(`replicas-${randomUUID().slice(0, 8)}`);
      if (added.kind !== 'added') throw new Error('executor credential not issued');
      const workRoot = path.join(dir, 'executor');
      fs.mkdirSync(workRoot);
      // Searchable and writable by the sandbox's unprivileged user when tests run as root.
      fs.chmodSync(dir, 0o711);
      fs.chmodSync(gates, 0o777);
      fs.chmodSync(path.dirname(gates), 0o711);
      executor = startExecutorProcess({
        apiUrl: proxy.url,
        credential: added.token,
        workRoot,
        log: path.join(dir, 'executor.log'),
        // One slot: one claim at a time, so the swallowed answer is the one with the job.
        env: { RAILYARD_EXECUTOR_SLOTS: '1', RAILYARD_SANDBOX_WRITABLE_PATHS: gates },
      });
      return {
        async close() {
          await killGroup(executor);
          await Promise.all(replicas.map((a) => a.kill()));
          await proxy.close();
        },
      };
    },
  });
  q = await deployment.newQueue({
    command: 'touch $GATE/started && while [ ! -e $GATE/go ]; do sleep 0.2; done',
  });
  await q.createQueue({ concurrency: 1, mergeMethod: 'squash' });
}, 180_000);

afterAll(async () => {
  await q?.close();
  await deployment?.close();
  // Whatever a failed start left running (the deployment closes them when it started).
  await killGroup(executor);
  await Promise.all((apis ?? []).map((a) => a.kill()));
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

test('a job whose API died mid-claim reaches the executor through the other API, and a run whose API died mid-run reports through the other; one attempt', async () => {
  const [a, b] = apis!;
  const jobOf = async () =>
    (
      await q.pool.query<{
        id: string;
        test_run_id: string;
        attempt: number;
        state: string;
        touched: boolean;
      }>(
        `SELECT id, test_run_id, attempt, state, heartbeat_at > claimed_at AS touched
           FROM executor_jobs WHERE task_queue = $1`,
        [q.taskQueue],
      )
    ).rows[0];

  // 1. The claim's answer from A never arrives, and A dies.
  proxy.route(a.port);
  const swallowed = proxy.swallowClaimFrom(a.port);
  q.openPr(1, { 'one.txt': '1\n' });
  await q.submit(1);
  await swallowed;
  await a.kill();
  proxy.route(b.port);
  const lost = await jobOf();
  expect(lost?.state).toBe('claimed');

  // The run starts on the executor, through B, and it is still the first attempt.
  const started = path.join(q.gate, 'started');
  await q.waitFor('the run started on the executor', () => Promise.resolve(fs.existsSync(started)), 90_000);
  const running = await jobOf();
  expect(running).toMatchObject({ test_run_id: lost!.test_run_id, attempt: 1, state: 'claimed' });
  // The job reached it under a new id: whoever held the lost one could count nothing with it.
  expect(running!.id).not.toBe(lost!.id);

  // 2. A comes back, B (which handed the job out) dies mid-run: heartbeats go through A.
  await a.start();
  proxy.route(a.port);
  await b.kill();
  const before = (
    await q.pool.query<{ at: Date }>('SELECT heartbeat_at AS at FROM executor_jobs WHERE id = $1', [
      running!.id,
    ])
  ).rows[0]!.at;
  await q.waitFor(
    'a heartbeat through A',
    async () =>
      (
        await q.pool.query<{ at: Date }>('SELECT heartbeat_at AS at FROM executor_jobs WHERE id = $1', [
          running!.id,
        ])
      ).rows[0]!.at > before,
    30_000,
  );
  fs.writeFileSync(path.join(q.gate, 'go'), '');
  const record = await q.settled(1, 90_000);
  expect(record.state).toBe('merged');

  // Temporal's side: the run's executeTestRun was completed by its first attempt, nothing timed out.
  const history = await q.client.workflow
    .getHandle(testRunWorkflowId(q.key, lost!.test_run_id))
    .fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTestRun',
  );
  expect(scheduled).toBeDefined();
  const ofIt = (e: (typeof events)[number]) =>
    [
      e.activityTaskStartedEventAttributes,
      e.activityTaskCompletedEventAttributes,
      e.activityTaskTimedOutEventAttributes,
      e.activityTaskFailedEventAttributes,
    ].some((x) => x?.scheduledEventId?.toString() === scheduled!.eventId?.toString());
  const outcome = events.filter(ofIt);
  expect(
    outcome.map((e) => e.activityTaskStartedEventAttributes?.attempt ?? null).filter((x) => x !== null),
  ).toEqual([1]);
  expect(outcome.some((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
  expect(outcome.some((e) => e.activityTaskTimedOutEventAttributes)).toBe(false);
}, 240_000);
