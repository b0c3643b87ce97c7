/**
 * The real executor process (worker/executor.ts): it refuses the control plane's credentials, and
 * started without them it polls `<task queue>-ci`, answers /readyz with how test commands are
 * isolated, and stops cleanly on SIGTERM.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../scripts/lib/ports';
import { requireTestEnv } from '../../support/env';
import { testSandbox } from '../../support/executor';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

function start(env: Record<string, string>) {
  let out = '';
  const child = spawn(TSX, ['worker/executor.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', ...env },
  });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

test('given DATABASE_URL, the executor refuses to start and says why', async () => {
  const p = start({ DATABASE_URL: requireTestEnv('TEST_DATABASE_URL') });
  expect(await p.exited).toBe(1);
  expect(p.output()).toMatch(/DATABASE_URL is set, and an executor runs pull requests' code/);
  expect(p.output()).not.toContain(new URL(requireTestEnv('TEST_DATABASE_URL')).password || 'no-password');
}, 60_000);

test('the executor polls <task queue>-ci, says how it isolates runs on /readyz, and stops on SIGTERM', async () => {
  const port = await freePort();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'executor-process-'));
  fs.chmodSync(root, 0o711);
  const p = start({
    TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    RAILYARD_TASK_QUEUE: 'executor-process-test',
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
    expect(body).toMatchObject({ status: 'ready', taskQueue: 'executor-process-test-ci', slots: 4 });
    expect(body!.sandbox).toEqual(
      testSandbox() === null ? 'UNSANDBOXED' : expect.stringMatching(/bubblewrap/),
    );
    expect(p.output()).toMatch(/polling task queue "executor-process-test-ci"/);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    p.child.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 90_000);
