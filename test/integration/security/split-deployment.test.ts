/**
 * The split deployment under attack (issue 24): the control plane — Temporal and PostgreSQL (scripts/
 * test.sh's, on this machine's loopback), the worker and the API's executor routes — in this machine's
 * network namespace, the API listening on a veth address only; the real executor process in a network
 * namespace of its own whose network holds just the API (support/executor-network.ts: as compose's
 * `executors` network), talking to it by the name `api` with its credential.
 *
 * An attack PR's test command (network on, through the queue) scans its subnet, tries the API's,
 * Temporal's and PostgreSQL's ports on every address the test made and on loopback, tries Temporal's
 * gRPC with @temporalio/client, and tries an office-network and a cloud-metadata listener the test serves
 * in the executor's namespace: nothing answers, its run reports through the API normally (the PR merges)
 * and a plain PR merges afterwards. With RAILYARD_SANDBOX_NETWORK_ALLOW naming the office address, exactly
 * that address answers. A control shows the executor's namespace itself (outside the sandbox) reaches the
 * API and both listeners, and neither Temporal nor PostgreSQL. Every address probed is loopback or one
 * this test made in its own namespaces. Real bwrap, pasta, ip netns, Temporal, PostgreSQL.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probeSandbox } from '../../../executor/sandbox-probe';
import { requireTestEnv } from '../../support/env';
import { startExecutorApi, startExecutorProcess, type ExecutorApiServer } from '../../support/executor';
import { startQueueDeployment, type QueueDeployment, type QueueHarness } from '../../support/queue-harness';
import { INSTALL, requireTool } from '../../support/required-tool';
import { makeExecutorNetwork, type ExecutorNetwork } from './support/executor-network';
import { neighbourhoodUnavailable } from './support/neighbourhood';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..', '..');

// Missing bwrap, pasta or ip netns fails this suite under CI, and skips it loudly elsewhere.
const probe = probeSandbox('bwrap', 'pasta');
const unavailable = neighbourhoodUnavailable();
const ready =
  requireTool({
    tool: 'bwrap',
    probe,
    install: INSTALL.bwrap,
    neededBy: 'the split-deployment suite (split-deployment.test.ts)',
  }) &&
  probe.kind === 'available' &&
  requireTool({
    tool: 'pasta',
    probe: probe.isolatedNetwork,
    install: INSTALL.pasta,
    neededBy: 'the split-deployment suite (split-deployment.test.ts)',
  }) &&
  requireTool({
    tool: 'ip netns',
    probe: unavailable === null ? { kind: 'available' } : { kind: 'unavailable', reason: unavailable },
    install: 'run the tests as root with iproute2 installed (bash scripts/ensure-bwrap.sh)',
    neededBy: 'the split-deployment suite (split-deployment.test.ts)',
  });

interface Targets {
  tcp: [string, number][];
  temporal: string[];
}

/**
 * The attack PR's probe (Node.js, which the sandbox binds): a TCP connection to every target, a gRPC
 * connection with @temporalio/client to every Temporal address; prints what answered.
 */
const PROBE = (marker: string, targets: Targets, modules: string) => `
const net = require('node:net');
const targets = ${JSON.stringify(targets)};
console.log('probe ${marker}');
const connect = (host, port) => new Promise((resolve) => {
  const s = net.connect({ host, port, timeout: 2000 });
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('timeout', () => { s.destroy(); resolve(false); });
  s.once('error', () => resolve(false));
});
(async () => {
  const queue = [...targets.tcp];
  let probed = 0;
  await Promise.all(Array.from({ length: 64 }, async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      if (await connect(t[0], t[1])) console.log('reached ' + t[0] + ':' + t[1]);
      probed += 1;
    }
  }));
  console.log('probed ' + probed);
  const { Connection } = require(${JSON.stringify(path.join(modules, '@temporalio', 'client'))});
  console.log('temporal client loaded');
  for (const address of targets.temporal) {
    try {
      const c = await Connection.connect({ address, connectTimeout: 3000 });
      await c.workflowService.getSystemInfo({});
      console.log('reached temporal ' + address);
      await c.close();
    } catch (err) {
      console.log('temporal ' + address + ': ' + String(err && err.message).split('\\n')[0]);
    }
  }
  console.log('probe done');
})();
`;

const describeReady = ready ? describe : describe.skip;

describeReady('a split deployment: the executor in a network namespace of its own', () => {
  let netw: ExecutorNetwork;
  let deployment: QueueDeployment;
  let api: ExecutorApiServer;
  let q: QueueHarness;
  let executor: { child: ChildProcess; root: string; log: string } | undefined;
  const pg = new URL(requireTestEnv('TEST_DATABASE_URL'));
  const temporal = requireTestEnv('TEST_TEMPORAL_ADDRESS');
  const temporalPort = Number(temporal.split(':').at(-1));
  let apiPort: number;

  async function startExecutor(env: Record<string, string> = {}) {
    const root = mkdtempSync(path.join(os.tmpdir(), 'railyard-split-'));
    chmodSync(root, 0o711);
    const log = path.join(root, 'executor.log');
    const child = startExecutorProcess({
      apiUrl: `http://api:${apiPort}`,
      credential: await api.issue(),
      workRoot: path.join(root, 'work'),
      readOnlyPaths: [modules],
      log,
      netns: netw.name,
      env: { RAILYARD_EXECUTOR_HEALTH_PORT: '0', RAILYARD_SHUTDOWN_GRACE_SECONDS: '1', ...env },
    });
    executor = { child, root, log };
    const text = () => readFileSync(log, 'utf8');
    for (const until = Date.now() + 60_000; !/taking test runs from/.test(text());) {
      if (child.exitCode !== null || Date.now() > until)
        throw new Error(`the executor did not start:\n${text()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function stopExecutor() {
    const e = executor;
    executor = undefined;
    if (!e) return;
    if (e.child.exitCode === null && e.child.signalCode === null) {
      const exited = new Promise((r) => e.child.once('exit', r));
      process.kill(-e.child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-e.child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(e.root, { recursive: true, force: true });
  }

  // The project's node_modules (for @temporalio/client), bound where the sandbox's unprivileged user
  // can reach it: the project may sit in a folder only root may enter (a fresh clone under a 0700 temp
  // folder), where bwrap, started as that user, cannot bind it.
  let modulesHome: string | undefined;
  let modules = '';

  beforeAll(async () => {
    modulesHome = mkdtempSync(path.join(os.tmpdir(), 'railyard-split-modules-'));
    chmodSync(modulesHome, 0o711);
    modules = path.join(modulesHome, 'node_modules');
    mkdirSync(modules);
    execFileSync('mount', ['--bind', path.join(ROOT, 'node_modules'), modules]);
    netw = await makeExecutorNetwork();
    deployment = await startQueueDeployment({
      startExecutor: async ({ taskQueue, pool }) => {
        api = await startExecutorApi({ pool, taskQueue, host: netw.apiAddress });
        apiPort = Number(new URL(api.url).port);
        return api;
      },
    });
    q = await deployment.newQueue({ command: 'true' });
    await q.createQueue({ concurrency: 1, mergeMethod: 'squash' });
  }, 120_000);

  afterAll(async () => {
    await stopExecutor().catch(() => undefined);
    await q?.close();
    await deployment?.close();
    await netw?.close();
    if (modulesHome) {
      spawnSync('umount', [modules]);
      // Never recursive: were the bind still there, that would delete the project's node_modules.
      rmdirSync(modules);
      rmdirSync(modulesHome);
    }
  }, 120_000);

  const ports = () => [apiPort, temporalPort, Number(pg.port || 5432), netw.port];

  /** Every port on every address of the subnet, the listeners' addresses and loopback. */
  const targets = (): Targets => {
    const hosts = [
      ...Array.from({ length: 254 }, (_, i) => `${netw.subnet}.${i + 1}`),
      netw.office,
      netw.metadata,
      '127.0.0.1',
    ];
    return {
      tcp: hosts.flatMap((h) => ports().map((p): [string, number] => [h, p])),
      temporal: [`${netw.apiAddress}:${temporalPort}`, `127.0.0.1:${temporalPort}`],
    };
  };

  /** Opens PR `n` whose command is the probe; waits until it settles; returns its state and run's log. */
  async function probePr(n: number) {
    const marker = `pr-${n}-${q.key.organisationId.slice(0, 8)}`;
    const t = targets();
    q.openPr(n, {
      'probe.js': PROBE(marker, t, modules),
      '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'node probe.js' }),
    });
    await q.submit(n);
    const record = await q.settled(n, 120_000);
    const { rows } = await q.pool.query<{ content: Buffer }>(
      'SELECT content FROM test_run_logs WHERE organisation_id = $1',
      [q.key.organisationId],
    );
    const log = rows.map((r) => r.content.toString('utf8')).find((c) => c.includes(`probe ${marker}`)) ?? '';
    // The probe ran to its end: every target tried, the Temporal client loaded (else an empty list
    // would prove nothing).
    expect({ probed: /^probed (\d+)$/m.exec(log)?.[1], done: log.includes('probe done') }).toEqual({
      probed: String(t.tcp.length),
      done: true,
    });
    expect(log).toContain('temporal client loaded');
    return {
      state: record.state,
      reached: log.split('\n').filter((l) => l.startsWith('reached ')),
    };
  }

  it("wiring: the executor's namespace reaches the API and the listeners, not Temporal or PostgreSQL", () => {
    expect(netw.reachesFromNamespace(netw.apiAddress, apiPort)).toBe(true);
    expect(netw.reachesFromNamespace(netw.office, netw.port)).toBe(true);
    expect(netw.reachesFromNamespace(netw.metadata, netw.port)).toBe(true);
    for (const host of [netw.apiAddress, '127.0.0.1'])
      for (const port of [temporalPort, Number(pg.port || 5432)])
        expect({ host, port, reached: netw.reachesFromNamespace(host, port) }).toEqual({
          host,
          port,
          reached: false,
        });
  });

  it('an attack PR reaches nothing of the control plane or the neighbourhood, reports normally, and a plain PR merges after it', async () => {
    await startExecutor();
    const before = netw.connections.length;
    const attack = await probePr(1);
    expect(attack).toEqual({ state: 'merged', reached: [] });
    expect(netw.connections.slice(before)).toEqual([]);

    q.openPr(2, {
      'plain.txt': 'plain\n',
      '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'true' }),
    });
    await q.submit(2);
    expect((await q.settled(2, 120_000)).state).toBe('merged');
    expect(q.mainLog()).toHaveLength(2);
    await stopExecutor();
  });

  it('with RAILYARD_SANDBOX_NETWORK_ALLOW naming the office address, exactly that address answers', async () => {
    await startExecutor({ RAILYARD_SANDBOX_NETWORK_ALLOW: netw.office });
    const before = netw.connections.length;
    const attack = await probePr(3);
    expect(attack).toEqual({ state: 'merged', reached: [`reached ${netw.office}:${netw.port}`] });
    expect(netw.connections.slice(before)).toEqual([netw.office]);
    await stopExecutor();
  });
});

// The namespace and its listener are gone once the suite ends (a check of the fixture's cleanup).
afterAll(() => {
  if (!ready) return;
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  expect(list).not.toContain(`railyard-exec-${process.pid % 10_000}`);
});
