/**
 * A private PostgreSQL cluster for `npm start` (under .data/) and `npm test` (a temp dir): loopback only,
 * no Unix socket, on the port given, its superuser behind a random password (pg-password.ts: test
 * commands may share the host's network, so nothing on 127.0.0.1 may be trusted). PostgreSQL refuses to
 * run as root, so when we are root the cluster belongs to, and runs as, the unprivileged system user
 * `railyard-pg`. The URLs returned carry the password: never log them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { secureCluster } from './pg-password';
import type { Managed, Supervisor } from './supervisor';
import { waitForPort } from './ports';

const PG_USER = 'railyard-pg';
export const PG_SUPERUSER = 'railyard';

export class SetupError extends Error {}

export function findPgBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  try {
    return path.dirname(execFileSync('which', ['postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new SetupError(
      'PostgreSQL server binaries were not found; run `bash scripts/ensure-deps.sh` or set DATABASE_URL.',
    );
  }
}

export interface RunAs {
  uid: number;
  gid: number;
}

/** The user the cluster runs as: ourselves (null), or `railyard-pg` when we are root. */
export function runAsUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', PG_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', PG_USER], { encoding: 'utf8' }).trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], {
        stdio: 'ignore',
      });
    } catch {
      throw new SetupError(
        `Could not create the unprivileged user ${PG_USER} that PostgreSQL must run as; create it with useradd.`,
      );
    }
    return lookup();
  }
}

export function asUser(runAs: RunAs | null, command: string, args: string[]): [string, string[]] {
  return runAs
    ? [
        'setpriv',
        [
          '--reuid',
          String(runAs.uid),
          '--regid',
          String(runAs.gid),
          '--clear-groups',
          '--',
          command,
          ...args,
        ],
      ]
    : [command, args];
}

export interface ClusterOptions {
  dataDir: string;
  port: number;
  /** Trade durability for speed (tests only). */
  ephemeral?: boolean;
  logFile?: string;
}

export function initCluster(opts: ClusterOptions): void {
  const bin = findPgBinDir();
  const runAs = runAsUser();
  if (fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'))) return;
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(opts.dataDir, runAs.uid, runAs.gid);
  const [cmd, args] = asUser(runAs, path.join(bin, 'initdb'), [
    '-D',
    opts.dataDir,
    '-U',
    PG_SUPERUSER,
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-instructions',
  ]);
  try {
    execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: '/' });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    throw new SetupError(
      `initdb failed for ${opts.dataDir}${runAs ? ` (running as ${PG_USER}; every parent directory must be searchable by it, see scripts/lib/pg-placement.ts)` : ''}: ${stderr.split('\n')[0]}`,
    );
  }
  // initdb leaves trust; secureCluster (always before the server starts) replaces it.
}

/** The superuser's password, set first on a cluster that has none (pg-password.ts); server stopped. */
export function securePassword(opts: ClusterOptions): string {
  const runAs = runAsUser();
  const postgres = path.join(findPgBinDir(), 'postgres');
  try {
    return secureCluster({
      dataDir: opts.dataDir,
      role: PG_SUPERUSER,
      singleUser: (args) => asUser(runAs, postgres, args),
      ...(runAs ? { chownTo: runAs } : {}),
    });
  } catch (err) {
    throw new SetupError((err as Error).message);
  }
}

export interface StartedCluster {
  /** The database's URL, with the password. */
  url: string;
  /** The `postgres` database's URL (to create more databases), with the password. */
  adminUrl: string;
  managed: Managed;
}

export async function startCluster(
  sup: Supervisor,
  opts: ClusterOptions,
  database: string,
): Promise<StartedCluster> {
  initCluster(opts);
  const password = securePassword(opts);
  const bin = findPgBinDir();
  const settings = [
    'listen_addresses=127.0.0.1',
    `port=${opts.port}`,
    'unix_socket_directories=',
    'max_connections=200',
    'shared_buffers=256MB',
    'logging_collector=off',
    ...(opts.ephemeral ? ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] : []),
  ];
  const [cmd, args] = asUser(runAsUser(), path.join(bin, 'postgres'), [
    '-D',
    opts.dataDir,
    ...settings.flatMap((s) => ['-c', s]),
  ]);
  const managed = sup.start('postgres', cmd, args, {
    cwd: '/',
    quiet: true,
    logFile: opts.logFile,
    stopSignal: 'SIGINT',
  });
  try {
    await waitForPort(opts.port, 30_000, 'PostgreSQL', () => managed.child.exitCode === null);
  } catch (err) {
    const hint = opts.logFile
      ? ` (see ${opts.logFile}; if it says the lock file exists, another PostgreSQL still runs on ${opts.dataDir})`
      : '';
    throw new SetupError(`PostgreSQL did not start: ${(err as Error).message}${hint}.`);
  }
  const urlOf = (db: string) => `postgres://${PG_SUPERUSER}:${password}@127.0.0.1:${opts.port}/${db}`;
  const adminUrl = urlOf('postgres');
  await retry(async () => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
    } finally {
      await client.end();
    }
  });
  return { url: urlOf(database), adminUrl, managed };
}

async function retry(fn: () => Promise<void>, attempts = 50): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      // "the database system is starting up" answers before the cluster accepts queries.
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
