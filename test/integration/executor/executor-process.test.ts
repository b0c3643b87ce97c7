/**
 * The real executor process (worker/executor.ts): it refuses the control plane's credentials and
 * Temporal's address, stops when the API refuses its credential, and started with the API's URL and a
 * credential it announces itself, answers /readyz with how test commands are isolated, and stops
 * cleanly on SIGTERM; behind a load balancer with no API yet it keeps asking, saying why (issue 27).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startBalancer } from '../../../scripts/lib/balancer';
import { freePort } from '../../../scripts/lib/ports';
import { requireTestEnv } from '../../support/env';
import type { Pool } from 'pg';
import { createExecutorCredentials } from '../../../test-runs/store/executor-credentials';
import { startExecutorApi, testSandbox, type ExecutorApiServer } from '../../support/executor';
import { createMigratedDatabase } from '../../support/postgres';
import { tsNode } from '../../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function start(env: Record<string, string>) {
  let out = '';
  const child = spawn(...tsNode('worker/executor.ts'), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', ...env },
  });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

let pool: Pool;
let api: ExecutorApiServer;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('executor_process'));
  api = await startExecutorApi({ pool, taskQueue: 'executor-process-test' });
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
});

test('given DATABASE_URL, the executor refuses to start and says why', async () => {
  const p = start({ DATABASE_URL: requireTestEnv('TEST_DATABASE_URL') });
  expect(await p.exited).toBe(1);
  expect(p.output()).toMatch(/DATABASE_URL is set, and an executor runs pull requests' code/);
  expect(p.output()).not.toContain(new URL(requireTestEnv('TEST_DATABASE_URL')).password || 'no-password');
}, 60_000);

test("given Temporal's address, the executor refuses to start: it talks to the API only", async () => {
  const p = start({
    TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    RAILYARD_EXECUTOR_TOKEN: await api.issue(),
  });
  expect(await p.exited).toBe(1);
  expect(p.output()).toMatch(
    /TEMPORAL_ADDRESS is set, and an executor runs pull requests' code and talks only to the API/,
  );
}, 60_000);

test('a revoked credential: the API refuses it with one sentence, and the executor stops saying so', async () => {
  const name = `revoked-${Date.now()}`;
  const credential = await api.issue(name);
  expect(await createExecutorCredentials(pool).revoke(name)).toBe(true);
  const p = start({
    RAILYARD_EXECUTOR_API_URL: api.url,
    RAILYARD_EXECUTOR_TOKEN: credential,
    RAILYARD_EXECUTOR_HEALTH_PORT: '0',
    RAILYARD_EXECUTOR_WORK_ROOT: fs.mkdtempSync(path.join(os.tmpdir(), 'executor-revoked-')),
    ...(testSandbox() === null ? { RAILYARD_EXECUTOR_UNSANDBOXED: '1' } : {}),
  });
  expect(await p.exited).toBe(1);
  expect(p.output()).toMatch(
    /the API refused this executor's credential: The executor credential is not valid or has been revoked\./,
  );
  expect(p.output()).not.toContain(credential);
}, 60_000);

test('the executor announces itself to the API, says how it isolates runs on /readyz, and stops on SIGTERM', async () => {
  const port = await freePort();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-process-'));
  fs.chmodSync(root, 0o711);
  const name = `process-${Date.now()}`;
  const p = start({
    RAILYARD_EXECUTOR_API_URL: api.url,
    RAILYARD_EXECUTOR_TOKEN: await api.issue(name),
    RAILYARD_EXECUTOR_WORK_ROOT: path.join(root, 'work'),
    RAILYARD_EXECUTOR_HEALTH_PORT: String(port),
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '1',
    ...(testSandbox() === null ? { RAILYARD_EXECUTOR_UNSANDBOXED: '1' } : {}),
  });
  try {
    let body: Record<string, unknown> | undefined;
    for (const until = Date.now() + 60_000; Date.now() < until && !body;) {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      if (res?.status === 200) body = (await res.json()) as Record<string, unknown>;
      else await new Promise((r) => setTimeout(r, 250));
    }
    expect(body).toMatchObject({ status: 'ready', name, api: new URL(api.url).origin, slots: 4 });
    expect(body!.sandbox).toEqual(
      testSandbox() === null ? 'UNSANDBOXED' : expect.stringMatching(/bubblewrap/),
    );
    // Network-on runs: isolated through pasta, or refused where they cannot be (issue 24).
    const sandbox = testSandbox();
    expect(body!.network).toBe(sandbox === null ? 'shared' : sandbox.pasta ? 'isolated' : 'refused');
    expect(p.output()).toMatch(new RegExp(`executor "${name}" taking test runs from ${api.url}`));
    // What it announced is what operators list.
    const listed = (await createExecutorCredentials(pool).list()).find((e) => e.name === name);
    expect(listed?.announced).toMatchObject({ slots: 4, host: os.hostname() });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    p.child.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 90_000);

/** Waits until `done`, every 100 ms, for at most `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 100));
}

// Issue 27: the multi-replica stack's balancer (scripts/lib/balancer.ts) in front of an API that is
// not there yet. Its backend closes each connection unanswered, then (the API up) forwards to it.
// Before the fix the executor's first announce stayed unsettled, nothing held the event loop, and the
// process exited with code 0 before announcing, having said nothing.
test('announcing through a load balancer with no API behind it yet: the executor keeps asking, says why once in a while, and announces once the API is there', async () => {
  let unanswered = 0;
  let behind: number | null = null; // the API's port, once it is up
  const backend = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    if (behind === null) {
      unanswered += 1;
      socket.destroy();
      return;
    }
    const upstream = net.connect(behind, '127.0.0.1');
    upstream.on('error', () => socket.destroy());
    upstream.on('close', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const balancer = await startBalancer(await freePort(), [(backend.address() as net.AddressInfo).port]);
  const balancerUrl = `http://127.0.0.1:${balancer.port}`;
  const port = await freePort();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-balancer-'));
  fs.chmodSync(root, 0o711);
  const name = `balanced-${Date.now()}`;
  const p = start({
    RAILYARD_EXECUTOR_API_URL: balancerUrl,
    RAILYARD_EXECUTOR_TOKEN: await api.issue(name),
    RAILYARD_EXECUTOR_WORK_ROOT: path.join(root, 'work'),
    RAILYARD_EXECUTOR_HEALTH_PORT: String(port),
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '1',
    ...(testSandbox() === null ? { RAILYARD_EXECUTOR_UNSANDBOXED: '1' } : {}),
  });
  try {
    // Two closed announces (the first of a process may wait for its 5 s deadline: Node's fetch) and
    // the reason said, or the process gone.
    await until(
      () => (unanswered >= 2 && /not announced/.test(p.output())) || p.child.exitCode !== null,
      40_000,
    );
    expect(p.child.exitCode).toBeNull();
    const failures = p.output().match(/railyard executor: not announced to .*/g) ?? [];
    // Said once, not at every retry (the next after 30 s), with the reason.
    expect(failures).toEqual([
      expect.stringMatching(
        new RegExp(
          `not announced to ${balancerUrl} yet \\(attempt 1, \\d+ s\\), asking again: announcing this executor` +
            '( at \\S+ failed: fetch failed \\(.+\\)|: \\S+ gave no answer within \\d+ ms)$',
        ),
      ),
    ]);
    behind = Number(new URL(api.url).port);
    let body: Record<string, unknown> | undefined;
    for (const end = Date.now() + 30_000; Date.now() < end && !body;) {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      if (res?.status === 200) body = (await res.json()) as Record<string, unknown>;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(body).toMatchObject({ status: 'ready', name, api: balancerUrl });
    expect(p.output()).toMatch(new RegExp(`announced to ${balancerUrl} after \\d+ attempts`));
    expect(p.output()).toMatch(new RegExp(`executor "${name}" taking test runs from ${balancerUrl}`));
    const listed = (await createExecutorCredentials(pool).list()).find((e) => e.name === name);
    expect(listed?.announced).toMatchObject({ slots: 4, host: os.hostname() });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    p.child.kill('SIGKILL');
    await balancer.close();
    backend.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 90_000);

// Issue 24: without pasta (here a failing one first in PATH) network-on runs cannot be isolated.
(testSandbox() === null ? test.skip : test).each([
  ['refuse', 'refused', /test runs with the network on are REFUSED: their network cannot be isolated here/],
  ['allow', 'shared', /test runs with the network on share this machine's network/],
] as const)(
  'without pasta, RAILYARD_SANDBOX_NETWORK_UNISOLATED=%s: said at start and on /readyz (network %s), naming the tool',
  async (setting, network, said) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-no-pasta-'));
    fs.chmodSync(root, 0o711);
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'pasta'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const port = await freePort();
    const p = start({
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      RAILYARD_EXECUTOR_API_URL: api.url,
      RAILYARD_EXECUTOR_TOKEN: await api.issue(),
      RAILYARD_EXECUTOR_WORK_ROOT: path.join(root, 'work'),
      RAILYARD_EXECUTOR_HEALTH_PORT: String(port),
      RAILYARD_SHUTDOWN_GRACE_SECONDS: '1',
      RAILYARD_SANDBOX_NETWORK_UNISOLATED: setting,
    });
    try {
      let body: Record<string, unknown> | undefined;
      for (const until = Date.now() + 60_000; Date.now() < until && !body;) {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        if (res?.status === 200) body = (await res.json()) as Record<string, unknown>;
        else await new Promise((r) => setTimeout(r, 250));
      }
      expect(body).toMatchObject({
        status: 'ready',
        network,
        networkReason: expect.stringContaining('pasta is not installed (Debian package passt)') as string,
      });
      expect(p.output()).toMatch(said);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
  90_000,
);
