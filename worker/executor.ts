/**
 * Executor composition root (issue 17, issue 24, ADR 0014; `npm run executor`): config → sandbox check →
 * announce to the API → job loop (executor/job-loop.ts) → health endpoint. It holds the API's URL and
 * its executor credential, nothing else: no database URL, API secret, code-host credential or Temporal
 * address (executor-config.ts refuses them); it takes jobs, fetches their content, heartbeats and
 * reports over HTTP(S) to the API alone. Several can serve one deployment, on this machine or others.
 * SIGINT/SIGTERM: claims stop, running test runs get the grace time, then are reported as cut short.
 *
 * Invariants:
 * - Test commands run in the bwrap sandbox, or the process refuses to start (sandbox-settings.ts)
 *   unless RAILYARD_EXECUTOR_UNSANDBOXED=1, which its log and /readyz then say.
 * - Each executor works in `<work root>/<host>-<pid>`, removed when it exits; folders of this host's
 *   executors that no longer run (a crash mid-run) are removed at start.
 * - A credential the API refuses (wrong, revoked) stops the process with the API's sentence.
 * - The process never ends silently: each way out says why, and an event loop that empties before
 *   main() has settled is reported as the bug it is, with code 1 (issue 27).
 */
import { rmSync } from 'node:fs';
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { announceUntilAnswered } from '../executor/announce';
import { createExecutorApi, ExecutorRefused } from '../executor/api-client';
import { startJobLoop } from '../executor/job-loop';
import { createJobRunner } from '../executor/run-job';
import { createObjectCache } from '../executor/object-cache';
import { ConfigError } from '../platform/env';
import { type SandboxSettings } from '../executor/sandbox';
import { probeSandbox } from '../executor/sandbox-probe';
import { loadExecutorConfig } from './executor-config';
import { buildExecutorHealth, networkHealth, type ExecutorHealth } from './executor-health';
import { sandboxOf } from './sandbox-settings';

/** What the process is doing, for the message should it ever run out of things to wait for. */
let stage = 'starting';

async function main(): Promise<void> {
  const config = loadExecutorConfig();
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
  const sandboxName = sandbox && probe.kind === 'available' ? probe.version : 'UNSANDBOXED';
  const { network, networkReason } = networkHealth(sandbox);
  const api = createExecutorApi({
    apiUrl: config.RAILYARD_EXECUTOR_API_URL,
    credential: config.RAILYARD_EXECUTOR_TOKEN,
  });
  const log =
    config.RAILYARD_LOG_LEVEL === 'silent'
      ? () => undefined
      : (m: string) => console.error(`railyard executor: ${m}`);
  // The API may be starting too (npm start, compose): asked again until it answers, or refuses us.
  stage = `announcing itself to ${config.RAILYARD_EXECUTOR_API_URL}`;
  const name = await announceUntilAnswered({
    announce: () =>
      api.announce({
        host: os.hostname(),
        slots: config.RAILYARD_EXECUTOR_SLOTS,
        sandbox: sandboxName,
        network,
      }),
    apiUrl: config.RAILYARD_EXECUTOR_API_URL,
    log,
  });
  stage = `taking test runs from ${config.RAILYARD_EXECUTOR_API_URL}`;
  const loop = startJobLoop({
    api,
    slots: config.RAILYARD_EXECUTOR_SLOTS,
    runJob: createJobRunner({
      apiUrl: config.RAILYARD_EXECUTOR_API_URL,
      credential: config.RAILYARD_EXECUTOR_TOKEN,
      workRoot: checkouts,
      logRoot: logs,
      sandbox,
      maxContentBytes: config.RAILYARD_RUN_CONTENT_MAX_MB * 1024 * 1024,
      // Beside the checkouts, never under them (a sandbox binds its checkout); it goes with this process.
      cache: createObjectCache({
        root: path.join(own, 'object-cache'),
        maxBytes: config.RAILYARD_EXECUTOR_CACHE_MB * 1024 * 1024,
      }),
      runner: {
        maxDiskBytes: config.RAILYARD_SANDBOX_DISK_MB * 1024 * 1024,
        maxDiskEntries: config.RAILYARD_SANDBOX_DISK_FILES,
        maxRunMs: config.RAILYARD_EXECUTOR_MAX_RUN_MINUTES * 60_000,
      },
    }),
    log,
  });
  let running = true;
  const health = buildExecutorHealth({
    api: new URL(config.RAILYARD_EXECUTOR_API_URL).origin,
    name,
    slots: config.RAILYARD_EXECUTOR_SLOTS,
    sandbox: sandboxName,
    network,
    ...(networkReason !== undefined ? { networkReason } : {}),
    running: () => running,
  });
  if (config.RAILYARD_EXECUTOR_HEALTH_PORT > 0)
    await health.listen({
      host: config.RAILYARD_EXECUTOR_HEALTH_HOST,
      port: config.RAILYARD_EXECUTOR_HEALTH_PORT,
    });
  console.error(
    `railyard executor "${name}" taking test runs from ${config.RAILYARD_EXECUTOR_API_URL} with ${config.RAILYARD_EXECUTOR_SLOTS} slot(s); ` +
      `test commands ${sandbox ? `in bwrap (network ${NETWORK_WORDS[network]})` : 'UNSANDBOXED'}`,
  );
  const stop = () => {
    running = false;
    void loop.stop(config.RAILYARD_SHUTDOWN_GRACE_SECONDS * 1000);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await loop.done;
  } finally {
    running = false;
    await health.close().catch(() => undefined);
  }
}

const NETWORK_WORDS: Record<ExecutorHealth['network'], string> = {
  isolated: 'on, a namespace of its own through pasta',
  refused: 'on, but network-on runs are REFUSED: they cannot be isolated here',
  shared: "on, this machine's (RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow)",
  off: 'off',
};

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

// Every way out is process.exit: an empty event loop while main() is unsettled means something it
// awaited can no longer settle (issue 27: a fetch whose connection was gone, with only an unref'd timer
// left). That is a bug, said as one, with code 1: never a silent exit 0 that looks like a clean stop.
process.once('beforeExit', () => {
  console.error(
    `railyard executor stopped: nothing was left to wait for while ${stage} (a request that can no longer settle); this is a bug`,
  );
  process.exit(1);
});

// Idle keep-alive sockets to the API must not hold the process once the loop has stopped.
main()
  .then(() => process.exit(0))
  .catch((err: unknown) => {
    console.error(
      err instanceof ConfigError
        ? err.message
        : err instanceof ExecutorRefused
          ? `railyard executor: the API refused this executor's credential: ${err.message}`
          : `railyard executor stopped: ${String(err)}`,
    );
    process.exit(1);
  });
