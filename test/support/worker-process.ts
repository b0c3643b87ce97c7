/**
 * The real worker (worker/main.ts) as a child process for crash tests on the GitHub host: its `github`
 * git host configured by RAILYARD_GITHUB_* and pointed at fakehub, in its own process group so a
 * SIGKILL reaches git and everything it started. Secrets travel in the environment, never in argv.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { requireTestEnv } from './env';
import type { FakeHub } from './fakehub';
import type { GitHubQueueHarness } from './github-queue-harness';
import { tsNode } from '../../scripts/lib/ts-node';

const ROOT = path.resolve(__dirname, '..', '..');

export function startWorkerProcess(
  hub: FakeHub,
  g: GitHubQueueHarness,
  workRoot: string,
  log: string,
): ChildProcess {
  const out = fs.openSync(log, 'a');
  const child = spawn(...tsNode('worker/main.ts'), {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: requireTestEnv('TEST_DATABASE_URL'),
      TEMPORAL_ADDRESS: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
      RAILYARD_TASK_QUEUE: g.taskQueue,
      RAILYARD_GIT_ROOT: path.join(workRoot, 'git'),
      RAILYARD_WORK_ROOT: workRoot,
      // The run's one bundle: a restart costs no bundling.
      RAILYARD_WORKFLOW_BUNDLE: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
      RAILYARD_WORKER_METRICS_PORT: '0',
      RAILYARD_LOG_LEVEL: 'warn',
      RAILYARD_GITHUB_APP_ID: String(hub.app.id),
      RAILYARD_GITHUB_PRIVATE_KEY: hub.app.privateKey,
      RAILYARD_GITHUB_WEBHOOK_SECRET: hub.app.webhookSecret,
      RAILYARD_GITHUB_API_URL: hub.url,
      RAILYARD_GITHUB_GIT_URL: hub.url,
    },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return child;
}

/** SIGKILL to the child's whole process group; resolves once it has exited. */
export function killWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}
