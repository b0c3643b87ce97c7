/**
 * The whole railyard stack on this machine, every part a process that can be stopped and started again
 * on the same port: a private PostgreSQL cluster (or an external database, which then cannot be
 * restarted), the Temporal dev server with its state in a SQLite file (a restart keeps every
 * workflow), the worker, an executor and the API (services.ts). Used by the chaos run and the fuzzer.
 *
 * With `replicas` > 1 (issue 27) it runs that many APIs behind one round-robin address (balancer.ts),
 * that many workers (each with its own work folder, sharing the git root) and that many executors
 * (each taking runs through the shared address): `api`, `worker` and `executor` are then the first of
 * each, `apis`, `workers` and `executors` all of them.
 *
 * Restarts of PostgreSQL and Temporal are clean stops (fast shutdown, SIGTERM) followed by a start;
 * crashes are what the API and the worker get (SIGKILL), since they are the processes railyard owns.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runMigrations } from '../../stores/migrate';
import { issueOwnExecutorCredential } from './executor-credential';
import { apiUrl } from '../../platform/public-url';
import { startBalancer, type Balancer } from './balancer';
import { freePort } from './ports';
import { startCluster } from './postgres';
import { Supervisor, type Managed } from './supervisor';
import { startDevServer } from './temporal';
import { apiService, executorService, workerService, type Service, type ServiceSettings } from './services';

export interface StackOptions {
  /** Scratch folder for data, logs, the git root and checkouts; the caller removes it. */
  dir: string;
  /** Use this database instead of starting a cluster (PostgreSQL restarts are then unavailable). */
  databaseUrl?: string;
  /** Keep Temporal's state in a file (needed to restart it); default true. */
  durableTemporal?: boolean;
  /**
   * Use this Temporal (host:port, namespace `default`) instead of starting a dev server: Temporal
   * restarts are then unavailable. The stack's task queue is its own either way.
   */
  temporalAddress?: string;
  /** Further settings of the API and the worker. */
  env?: Record<string, string>;
  /** Processes of each kind (API, worker, executor); default 1. */
  replicas?: number;
  log: (message: string) => void;
}

export interface Stack {
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  gitRoot: string;
  logDir: string;
  api: Service;
  worker: Service;
  /** Runs the test commands (issue 17). */
  executor: Service;
  /** Every replica of each kind (one each unless `replicas` said more). */
  apis: Service[];
  workers: Service[];
  executors: Service[];
  canRestartPostgres: boolean;
  canRestartTemporal: boolean;
  restartTemporal(): Promise<void>;
  restartPostgres(): Promise<void>;
  stop(): Promise<void>;
}

async function stopManaged(m: Managed, signal: NodeJS.Signals): Promise<void> {
  if (m.child.exitCode !== null || m.child.signalCode !== null) return;
  try {
    process.kill(-m.child.pid!, signal);
  } catch {
    return;
  }
  await m.exited;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const sup = new Supervisor(opts.log);
  const logDir = path.join(opts.dir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  // PostgreSQL runs as an unprivileged user when we are root: it must reach its data dir.
  fs.chmodSync(opts.dir, 0o755);
  const replicas = Math.max(1, opts.replicas ?? 1);
  const [pgPort, temporalPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  // With replicas the public address is the balancer's; each API listens on a port of its own.
  const apiPorts: number[] = [];
  for (let i = 0; i < replicas; i++) apiPorts.push(replicas === 1 ? apiPort : await freePort());

  const startPostgres = () =>
    startCluster(
      sup,
      { dataDir: path.join(opts.dir, 'pg'), port: pgPort, logFile: path.join(logDir, 'postgres.log') },
      'railyard',
    );
  const startTemporal = () =>
    startDevServer(sup, {
      port: temporalPort,
      namespace: 'default',
      dbFile: opts.durableTemporal === false ? undefined : path.join(opts.dir, 'temporal.db'),
      logFile: path.join(logDir, 'temporal.log'),
    });

  // Closed on every way out: an open listener would keep the caller's process alive.
  let balancer: Balancer | null = null;
  try {
    const own = [
      opts.databaseUrl ? null : 'PostgreSQL',
      opts.temporalAddress ? null : 'the Temporal dev server',
    ];
    const starting = own.filter((x) => x !== null).join(' and ');
    if (starting) opts.log(`starting ${starting}...`);
    const [pg, temporal] = await Promise.all([
      opts.databaseUrl ? Promise.resolve(null) : startPostgres(),
      opts.temporalAddress ? Promise.resolve(null) : startTemporal(),
    ]);
    let pgManaged = pg?.managed ?? null;
    let temporalManaged = temporal;
    const databaseUrl = opts.databaseUrl ?? pg!.url;
    await runMigrations(databaseUrl);

    const settings: ServiceSettings = {
      databaseUrl,
      temporalAddress: opts.temporalAddress ?? `127.0.0.1:${temporalPort}`,
      taskQueue: `railyard-${randomUUID().slice(0, 8)}`,
      gitRoot: path.join(opts.dir, 'git'),
      workRoot: path.join(opts.dir, 'work'),
      apiPort,
      logDir,
      executorToken: await issueOwnExecutorCredential(databaseUrl, `stack-${randomUUID().slice(0, 8)}`),
      ...(opts.env ? { env: opts.env } : {}),
    };
    const named = (kind: string, i: number) => (i === 0 ? kind : `${kind}-${i + 1}`);
    const indices = [...Array(replicas).keys()];
    const workers = indices.map((i) =>
      workerService(
        sup,
        { ...settings, workRoot: path.join(settings.workRoot, named('worker', i)) },
        named('worker', i),
      ),
    );
    const apis = indices.map((i) => apiService(sup, { ...settings, apiPort: apiPorts[i]! }, named('api', i)));
    const executors = indices.map((i) => executorService(sup, settings, named('executor', i)));
    balancer = replicas > 1 ? await startBalancer(apiPort, apiPorts) : null;
    // A root executor starts test runs as an unprivileged user, who must reach its work root.
    fs.chmodSync(opts.dir, 0o711);
    opts.log(
      replicas > 1
        ? `starting ${replicas} workers, APIs and executors...`
        : 'starting the worker, the API and an executor...',
    );
    // Executors last, so their first announce (through the balancer with replicas) finds an API: one
    // started earlier asks again with backoff (executor/announce.ts), only later and with log lines.
    await Promise.all([...workers, ...apis].map((service) => service.start()));
    await Promise.all(executors.map((service) => service.start()));
    const [worker, api, executor] = [workers[0]!, apis[0]!, executors[0]!];

    return {
      apiUrl: apiUrl({ port: apiPort }),
      databaseUrl,
      temporalAddress: settings.temporalAddress,
      gitRoot: settings.gitRoot,
      logDir,
      api,
      worker,
      executor,
      apis,
      workers,
      executors,
      canRestartPostgres: pgManaged !== null,
      canRestartTemporal: temporalManaged !== null,
      async restartTemporal() {
        if (!temporalManaged) throw new Error('Temporal is external to this stack and cannot be restarted');
        await stopManaged(temporalManaged, 'SIGTERM');
        temporalManaged = await startTemporal();
      },
      async restartPostgres() {
        if (!pgManaged) throw new Error('PostgreSQL is external to this stack and cannot be restarted');
        await stopManaged(pgManaged, 'SIGINT');
        pgManaged = (await startPostgres()).managed;
      },
      stop: async () => {
        await balancer?.close();
        await sup.stopAll(5_000);
      },
    };
  } catch (err) {
    await balancer?.close();
    await sup.stopAll(5_000);
    throw err;
  }
}
