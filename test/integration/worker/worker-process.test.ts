/**
 * The real worker process (worker/main.ts) against the real Temporal dev server: the ping workflow
 * makes the round trip (with the workflows bundled at start, as in development: the other tests' workers
 * load the run's one bundle through RAILYARD_WORKFLOW_BUNDLE), the Prometheus telemetry endpoint
 * answers, SIGTERM shuts down cleanly, and a bad setting stops it with a clear message. /readyz
 * reports Temporal down when it is unreachable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createTemporalGateway } from '../../../queue-client';
import { freePort, waitForPort } from '../../../scripts/lib/ports';
import { requireTestEnv } from '../../support/env';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function startWorker(env: NodeJS.ProcessEnv): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  let out = '';
  const child = spawn(...tsNode('worker/main.ts'), { cwd: ROOT, env: { ...process.env, ...env } });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

test('the ping workflow runs through the real worker; SIGTERM stops it cleanly', async () => {
  const taskQueue = `ping-${Date.now()}`;
  const metricsPort = await freePort();
  const worker = startWorker({
    DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
    TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    RAILYARD_TASK_QUEUE: taskQueue,
    RAILYARD_WORKER_METRICS_PORT: String(metricsPort),
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '2',
  });
  const gateway = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue,
    callTimeoutMs: 60_000,
  });
  try {
    await gateway.ping();
    await expect(gateway.pingWorker()).resolves.toBeUndefined();
    await waitForPort(metricsPort, 10_000, 'worker metrics');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/temporal_/);
  } finally {
    worker.child.kill('SIGTERM');
    await gateway.close();
  }
  expect(await worker.exited).toBe(0);
  expect(worker.output()).toContain(`polling task queue "${taskQueue}"`);
}, 120_000);

test('an unknown RAILYARD_ setting stops the worker with a clear message', async () => {
  const worker = startWorker({ DATABASE_URL: 'postgres://x@127.0.0.1/x', RAILYARD_TASK_QEUE: 'typo' });
  expect(await worker.exited).toBe(1);
  expect(worker.output()).toContain('Invalid configuration: RAILYARD_TASK_QEUE is not a railyard setting');
});

test('a RAILYARD_WORKFLOW_BUNDLE naming no file stops the worker with a clear message', async () => {
  const missing = path.join(requireTestEnv('TEST_TMP'), 'no-such-bundle.js');
  const worker = startWorker({ DATABASE_URL: 'postgres://x@127.0.0.1/x', RAILYARD_WORKFLOW_BUNDLE: missing });
  expect(await worker.exited).toBe(1);
  expect(worker.output()).toContain(`RAILYARD_WORKFLOW_BUNDLE: no workflow bundle at ${missing}`);
});

test('the gateway reports Temporal down as unavailable (what /readyz shows)', async () => {
  const closed = await freePort();
  const gateway = createTemporalGateway({
    address: `127.0.0.1:${closed}`,
    namespace: 'default',
    taskQueue: 'x',
    callTimeoutMs: 1_000,
  });
  await expect(gateway.ping()).rejects.toThrow();
  await expect(
    gateway.call('getQueue', () => gateway.client.workflow.getHandle('nope').describe()),
  ).rejects.toMatchObject({
    name: 'QueueClientError',
    problem: { kind: 'unavailable', what: 'getQueue', timeoutMs: 1_000 },
  });
  await gateway.close().catch(() => undefined);
});
