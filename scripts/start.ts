/**
 * `npm start`: runs railyard on its embedded defaults. Starts the Temporal dev server (SQLite under
 * .data/, Web UI on 8233) and a private PostgreSQL under .data/ unless TEMPORAL_ADDRESS / DATABASE_URL
 * point elsewhere, migrates, makes sure a development API key exists, then runs the worker and the API
 * until it is stopped.
 *
 * Stopping (docs/operations.md "Starting and stopping"):
 * - SIGINT (Ctrl-C: a terminal sends it to npm, sh and this process at once), SIGTERM (`npm run stop`)
 *   and SIGHUP all start the same stop. Repeats never cut it short or start it again: within a second
 *   they are the same keypress and ignored; later ones say what the stop is waiting for.
 * - The worker and the API stop first, with the worker's own RAILYARD_SHUTDOWN_GRACE_SECONDS plus 10 s,
 *   then PostgreSQL and Temporal; past a grace the process tree is SIGKILLed (lib/supervisor.ts).
 * - This process exits only once every child is gone; <data dir>/instance.json says what runs meanwhile.
 * This file runs under `node --require scripts/lib/ts-require.cjs` (scripts/start.sh), not the tsx CLI,
 * whose signal relay SIGKILLs a child that is slow to acknowledge a signal.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createPool } from '../stores/db';
import { ConfigError } from '../platform/env';
import { runMigrations } from '../stores/migrate';
import { apiUrl } from '../platform/public-url';
import { createApiKeyStore } from '../stores/api-keys';
import { banner } from './lib/banner';
import { dataDir, PROJECT_ROOT, readState, writeState } from './lib/data-dir';
import * as instance from './lib/instance';
import { placeExecutorWorkRoot } from './lib/executor-placement';
import { issueOwnExecutorCredential } from './lib/executor-credential';
import { placeCluster } from './lib/pg-placement';
import { cleanEnv } from './lib/services';
import { freePort, isPortOpen, waitForPort } from './lib/ports';
import { SetupError, startCluster } from './lib/postgres';
import {
  appGraceMs,
  INFRA_GRACE_MS,
  loadStartConfig,
  stopWithinMs,
  type StartConfig,
} from './lib/start-config';
import { Supervisor } from './lib/supervisor';
import { startDevServer } from './lib/temporal';
import { tsNode } from './lib/ts-node';

const say = (msg: string) => console.error(`railyard: ${msg}`);
const startedAt = new Date().toISOString();

async function ensureDevKey(databaseUrl: string): Promise<string> {
  const pool = createPool(databaseUrl, { max: 2 });
  try {
    const keys = createApiKeyStore(pool);
    const saved = readState('dev-api-key');
    if (saved && (await keys.authenticate(saved))) return saved;
    const { key } = await keys.create('dev', 'development key created by npm start');
    writeState('dev-api-key', key);
    return key;
  } finally {
    await pool.end();
  }
}

type InstanceRecord = instance.InstanceRecord;

async function refuseOrCleanPrevious(): Promise<void> {
  const previous = instance.readInstance();
  if (!previous) return;
  if (instance.supervisorAlive(previous)) {
    throw new SetupError(
      `railyard is already running from ${dataDir()} (pid ${previous.pid}, API ${previous.urls.api}); stop it with \`npm run stop\` (or Ctrl-C where it runs), or see \`npm run status\`.`,
    );
  }
  if (instance.liveChildren(previous).length > 0) {
    say('a previous npm start was killed before it could stop its processes; stopping them first.');
    await instance.stopInstance(previous, say);
  }
}

async function main(sup: Supervisor, cfg: StartConfig, record: InstanceRecord): Promise<void> {
  const data = dataDir();
  const save = (state: InstanceRecord['state']) => {
    record.state = state;
    record.children = sup.managed
      .filter((m) => m.child.pid !== undefined)
      .map((m) => instance.identify(m.name, m.child.pid!, m.stopSignal === 'SIGINT' ? 'SIGINT' : 'SIGTERM'));
    instance.writeInstance(record);
  };
  await refuseOrCleanPrevious();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The git host's repositories and the runs' checkouts live in the data folder too (RAILYARD_DATA_DIR
  // moves all of it), unless set on their own.
  env.RAILYARD_GIT_ROOT ??= path.join(data, 'git');
  env.RAILYARD_WORK_ROOT ??= path.join(data, 'work');
  const apiPort = cfg.RAILYARD_API_PORT;
  if (await isPortOpen(apiPort))
    throw new SetupError(`Port ${apiPort} is already in use; stop what uses it or set RAILYARD_API_PORT.`);
  save('starting');

  if (!env.TEMPORAL_ADDRESS) {
    const [port, uiPort] = [cfg.RAILYARD_DEV_TEMPORAL_PORT, cfg.RAILYARD_DEV_TEMPORAL_UI_PORT];
    for (const p of [port, uiPort])
      if (await isPortOpen(p))
        throw new SetupError(
          `Port ${p} is already in use: another railyard (\`npm run status\` in its folder tells) or Temporal runs; stop it, or set RAILYARD_DEV_TEMPORAL_PORT / RAILYARD_DEV_TEMPORAL_UI_PORT, or TEMPORAL_ADDRESS to use a running Temporal.`,
        );
    say('starting the Temporal dev server...');
    const started = startDevServer(sup, {
      port,
      uiPort,
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      dbFile: path.join(data, 'temporal.db'),
      logFile: path.join(data, 'temporal.log'),
    });
    save('starting');
    await started;
    env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
    record.ports = { ...record.ports, temporal: port, temporalUi: uiPort };
    record.urls.temporalUi = `http://127.0.0.1:${uiPort}`;
  }
  if (!env.DATABASE_URL) {
    const placement = placeCluster(path.join(data, 'pg'));
    if (placement.movedBecause) say(`${placement.movedBecause}; its data directory is ${placement.dataDir}.`);
    say('starting PostgreSQL...');
    const saved = Number(readState('pg-port'));
    const port = saved && !(await isPortOpen(saved)) ? saved : await freePort();
    writeState('pg-port', String(port));
    const started = startCluster(
      sup,
      { dataDir: placement.dataDir, port, logFile: path.join(data, 'postgres.log') },
      'railyard',
    );
    save('starting');
    const { url } = await started;
    env.DATABASE_URL = url;
    writeState('database-url', url);
    record.ports = { ...record.ports, postgres: port };
    record.postgresDataDir = placement.dataDir;
    writeState('pg-data-dir', placement.dataDir);
  }

  const applied = await runMigrations(env.DATABASE_URL, say);
  if (applied.length === 0) say('database schema is up to date.');
  const key = await ensureDevKey(env.DATABASE_URL);
  if (!env.RAILYARD_PAGE_TOKEN_SECRET) {
    env.RAILYARD_PAGE_TOKEN_SECRET = readState('page-token-secret') ?? randomBytes(32).toString('base64url');
    writeState('page-token-secret', env.RAILYARD_PAGE_TOKEN_SECRET);
  }

  // The worker and the API stop before PostgreSQL and Temporal, which they need while they drain.
  const app = { cwd: PROJECT_ROOT, tier: 1_000, graceMs: appGraceMs(cfg) };
  const worker = sup.start('worker', ...tsNode('worker/main.ts'), {
    ...app,
    env,
    stopReason: `running activities get RAILYARD_SHUTDOWN_GRACE_SECONDS=${cfg.RAILYARD_SHUTDOWN_GRACE_SECONDS} s to finish`,
  });
  const api = sup.start('api', ...tsNode('api/server.ts'), {
    ...app,
    env: {
      ...env,
      RAILYARD_API_PORT: String(apiPort),
      // The dashboard links workflows to the Temporal UI this start runs (unless one is set).
      ...(record.urls.temporalUi && !env.RAILYARD_TEMPORAL_UI_URL
        ? { RAILYARD_TEMPORAL_UI_URL: record.urls.temporalUi }
        : {}),
    },
    stopReason: 'requests in flight finish',
  });
  // One executor runs the test commands (issue 17), with nothing of the control plane's: no database
  // URL, no page-token secret, no GitHub key, not even Temporal's address (it refuses to start with
  // them). It takes its runs from the API with a credential issued for it at every start (issue 24).
  const executorRoot =
    env.RAILYARD_EXECUTOR_WORK_ROOT ?? placeExecutorWorkRoot(path.join(data, 'executor')).dir;
  const executorEnv = cleanEnv({
    ...(env.RAILYARD_LOG_LEVEL ? { RAILYARD_LOG_LEVEL: env.RAILYARD_LOG_LEVEL } : {}),
    RAILYARD_EXECUTOR_API_URL: apiUrl({ port: apiPort }),
    RAILYARD_EXECUTOR_TOKEN: await issueOwnExecutorCredential(env.DATABASE_URL, 'npm-start'),
    RAILYARD_EXECUTOR_WORK_ROOT: executorRoot,
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] => /^RAILYARD_(EXECUTOR|SANDBOX)_/.test(e[0]) && e[1] !== undefined,
      ),
    ),
  });
  const executor = sup.start('executor', ...tsNode('worker/executor.ts'), {
    ...app,
    env: executorEnv,
    stopReason: 'running test runs get RAILYARD_SHUTDOWN_GRACE_SECONDS to finish',
  });
  save('starting');
  await waitForPort(
    apiPort,
    60_000,
    'The API',
    () => api.child.exitCode === null && worker.child.exitCode === null && executor.child.exitCode === null,
  );

  save('running');
  console.log(
    banner({
      apiPort,
      key,
      keyFile: path.join(data, 'dev-api-key'),
      temporalAddress: env.TEMPORAL_ADDRESS,
      ...(record.urls.temporalUi ? { temporalUi: record.urls.temporalUi } : {}),
      interactive: process.stdout.isTTY === true,
    }),
  );
  const died = await sup.firstUnexpectedExit();
  if (!sup.isStopping) {
    say(`${died.name} exited unexpectedly (code ${String(died.code)}); stopping the rest.`);
    await shutdown(1);
  }
}

const supervisor = new Supervisor(say);
let record: InstanceRecord | undefined;
let exiting: Promise<void> | null = null;
let firstSignalAt = 0;

function shutdown(code: number): Promise<void> {
  exiting ??= (async () => {
    if (record && instance.readInstance()?.pid === process.pid) {
      record.state = 'stopping';
      instance.writeInstance(record);
    }
    await supervisor.stopAll(INFRA_GRACE_MS);
    instance.removeInstance(process.pid);
    say(code === 0 ? 'stopped; nothing is left running.' : 'stopped.');
    process.exit(code);
  })();
  return exiting;
}

function onSignal(signal: NodeJS.Signals): void {
  if (!exiting) {
    firstSignalAt = Date.now();
    say(`${signal}: stopping everything...`);
    void shutdown(0);
  } else if (Date.now() - firstSignalAt > 1_000) {
    say(`still stopping (${supervisor.waitingFor()}); nothing is left behind once this exits.`);
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));
// A closed terminal (SIGHUP, then EIO on every write) or any bug must not end this process before its
// children: it would leave them running with nobody to stop them.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
process.on('uncaughtException', (err) => {
  say(`internal error: ${err.message}; stopping everything.`);
  void shutdown(1);
});

async function run(): Promise<void> {
  const cfg = loadStartConfig();
  const processInfo = instance.identify('supervisor', process.pid);
  record = {
    pid: process.pid,
    ...(processInfo.startTime !== undefined ? { startTime: processInfo.startTime } : {}),
    startedAt,
    state: 'starting',
    stopWithinMs: stopWithinMs(cfg),
    ports: { api: cfg.RAILYARD_API_PORT },
    urls: {
      api: `${apiUrl({ port: cfg.RAILYARD_API_PORT })}/v1`,
      docs: `${apiUrl({ port: cfg.RAILYARD_API_PORT })}/v1/docs`,
    },
    dataDir: dataDir(),
    children: [],
  };
  await main(supervisor, cfg, record);
}

run().catch(async (err: unknown) => {
  // A failure caused by the stop itself (a child killed while starting) is no news.
  if (!exiting) {
    say(
      err instanceof SetupError || err instanceof ConfigError
        ? err.message
        : `start failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  await shutdown(1);
});
