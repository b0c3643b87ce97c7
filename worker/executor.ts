/**
 * Executor composition root (issue 17, `npm run executor`): config → sandbox check → Temporal worker
 * serving only executeTestRun on the executor task queue (`<RAILYARD_TASK_QUEUE>-ci`) → health endpoint.
 * It holds no database URL, API secret or code-host credential (executor-config.ts refuses them), no
 * workflows, and reaches only Temporal and the API's run-content endpoint. Several can serve one queue,
 * on this machine or others. SIGINT/SIGTERM: polling stops, running test runs get the grace time.
 *
 * Invariants:
 * - Test commands run in the bwrap sandbox, or the process refuses to start (sandbox-settings.ts)
 *   unless RAILYARD_EXECUTOR_UNSANDBOXED=1, which its log and /readyz then say.
 * - Each executor works in `<work root>/<host>-<pid>`, removed when it exits; folders of this host's
 *   executors that no longer run (a crash mid-run) are removed at start.
 */
import { rmSync } from 'node:fs';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createExecutorActivities } from '../executor/executor-activities';
import { ConfigError } from '../platform/env';
import { probeSandbox, type SandboxSettings } from '../executor/sandbox';
import { executorTaskQueue } from '../contract';
import { loadExecutorConfig } from './executor-config';
import { buildExecutorHealth } from './executor-health';
import { sandboxOf } from './sandbox-settings';
import { SDK_LOG_LEVEL } from './sdk-log-level';

async function main(): Promise<void> {
  const config = loadExecutorConfig();
  Runtime.install({ logger: new DefaultLogger(SDK_LOG_LEVEL[config.RAILYARD_LOG_LEVEL]) });
  // One probe (it runs bwrap and pasta once): the sandbox and /readyz both come from it.
  const probe = probeSandbox('bwrap');
  const sandbox = sandboxOf(config, () => probe);
  // Several executors may share a work root (`npm run executor` beside npm start's): each has a folder
  // of its own, and removes only those of executors of this host that no longer run.
  const workRoot = path.resolve(config.RAILYARD_EXECUTOR_WORK_ROOT);
  await removeDeadExecutorFolders(workRoot);
  const own = path.join(workRoot, `${os.hostname()}-${process.pid}`);
  const checkouts = path.join(own, 'checkouts');
  const logs = path.join(own, 'logs');
  await rm(own, { recursive: true, force: true });
  await Promise.all([mkdir(checkouts, { recursive: true }), mkdir(logs, { recursive: true })]);
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  if (sandbox) await reachableBySandbox(checkouts, sandbox);
  const taskQueue = executorTaskQueue(config.RAILYARD_TASK_QUEUE);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  let running = false;
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue,
    identity: `railyard-executor@${os.hostname()}:${process.pid}`,
    maxConcurrentActivityTaskExecutions: config.RAILYARD_EXECUTOR_SLOTS,
    activities: createExecutorActivities({
      apiUrl: config.RAILYARD_EXECUTOR_API_URL,
      workRoot: checkouts,
      logRoot: logs,
      sandbox,
      maxContentBytes: config.RAILYARD_RUN_CONTENT_MAX_MB * 1024 * 1024,
      runner: {
        maxDiskBytes: config.RAILYARD_SANDBOX_DISK_MB * 1024 * 1024,
        maxDiskEntries: config.RAILYARD_SANDBOX_DISK_FILES,
        maxRunMs: config.RAILYARD_EXECUTOR_MAX_RUN_MINUTES * 60_000,
      },
    }),
    shutdownGraceTime: `${config.RAILYARD_SHUTDOWN_GRACE_SECONDS} seconds`,
  });
  const health = buildExecutorHealth({
    taskQueue,
    slots: config.RAILYARD_EXECUTOR_SLOTS,
    sandbox: sandbox && probe.kind === 'available' ? probe.version : 'UNSANDBOXED',
    network: !sandbox || sandbox.network ? (sandbox?.pasta ? 'isolated' : 'shared') : 'off',
    running: () => running,
  });
  if (config.RAILYARD_EXECUTOR_HEALTH_PORT > 0)
    await health.listen({
      host: config.RAILYARD_EXECUTOR_HEALTH_HOST,
      port: config.RAILYARD_EXECUTOR_HEALTH_PORT,
    });
  console.error(
    `railyard executor polling task queue "${taskQueue}" on ${config.TEMPORAL_ADDRESS} with ${config.RAILYARD_EXECUTOR_SLOTS} slot(s); ` +
      `test commands ${sandbox ? `in bwrap (network ${sandbox.network ? (sandbox.pasta ? 'on, a namespace of its own through pasta' : "on, this machine's") : 'off'})` : 'UNSANDBOXED'}; run content from ${config.RAILYARD_EXECUTOR_API_URL}`,
  );
  running = true;
  try {
    await worker.run();
  } finally {
    running = false;
    await Promise.allSettled([health.close(), connection.close()]);
  }
}

/** Leftovers of executors of this host whose process is gone (a crash mid-run): checkouts and logs. */
async function removeDeadExecutorFolders(workRoot: string): Promise<void> {
  const prefix = `${os.hostname()}-`;
  const names = await readdir(workRoot).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(name.slice(prefix.length));
    if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    await rm(path.join(workRoot, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A root executor starts bwrap as an unprivileged user (sandbox.ts), which opens the checkout by path:
 * every folder above it must be searchable by others. The executor's own folders are made so; a parent
 * that is not stops the start with its name, rather than failing every run with "Permission denied".
 */
async function reachableBySandbox(dir: string, sandbox: SandboxSettings): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const own = path.resolve(dir, '..');
  const owned = path.resolve(own, '..');
  await chmod(owned, 0o711);
  await chmod(own, 0o711);
  await chmod(dir, 0o711);
  for (let at = path.dirname(owned); ; at = path.dirname(at)) {
    const info = await stat(at);
    if ((info.mode & 0o001) === 0 && info.uid !== sandbox.runAs.uid)
      throw new ConfigError(
        `railyard executor: ${at} is not searchable by uid ${sandbox.runAs.uid}, which test runs start as; ` +
          `chmod o+x ${at}, or set RAILYARD_EXECUTOR_WORK_ROOT to a folder under one that is.`,
      );
    if (at === path.dirname(at)) return;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `railyard executor stopped: ${String(err)}`);
  process.exit(1);
});
