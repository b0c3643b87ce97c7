/**
 * `npm start`: runs railyard on its embedded defaults. Starts the Temporal dev server (SQLite under
 * .data/, Web UI on 8233) and a private PostgreSQL under .data/ unless TEMPORAL_ADDRESS / DATABASE_URL
 * point elsewhere, migrates, makes sure a development API key exists, then runs the worker and the API
 * until Ctrl-C, which stops every process it started.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createPool } from '../activities/platform/db';
import { runMigrations } from '../activities/platform/migrate';
import { apiUrl, DEFAULT_API_PORT } from '../activities/platform/public-url';
import { createApiKeyStore } from '../activities/stores/api-keys';
import { dataDir, PROJECT_ROOT, readState, writeState } from './lib/data-dir';
import { freePort, isPortOpen, waitForPort } from './lib/ports';
import { SetupError, startCluster } from './lib/postgres';
import { Supervisor } from './lib/supervisor';
import { startDevServer } from './lib/temporal';

const TEMPORAL_PORT = 7233;
const TEMPORAL_UI_PORT = 8233;
const say = (msg: string) => console.error(`railyard: ${msg}`);

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

async function main(sup: Supervisor): Promise<void> {
  const stop = async (code: number) => {
    say('stopping...');
    await sup.stopAll();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const data = dataDir();
  const env: NodeJS.ProcessEnv = { ...process.env };
  const apiPort = Number(process.env.RAILYARD_API_PORT ?? DEFAULT_API_PORT);
  if (await isPortOpen(apiPort))
    throw new SetupError(`Port ${apiPort} is already in use; stop what uses it or set RAILYARD_API_PORT.`);

  if (!env.TEMPORAL_ADDRESS) {
    if (await isPortOpen(TEMPORAL_PORT))
      throw new SetupError(
        `Port ${TEMPORAL_PORT} is already in use (another Temporal?); stop it or set TEMPORAL_ADDRESS to use it.`,
      );
    say('starting the Temporal dev server...');
    await startDevServer(sup, {
      port: TEMPORAL_PORT,
      uiPort: TEMPORAL_UI_PORT,
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      dbFile: path.join(data, 'temporal.db'),
      logFile: path.join(data, 'temporal.log'),
    });
    env.TEMPORAL_ADDRESS = `127.0.0.1:${TEMPORAL_PORT}`;
  }
  if (!env.DATABASE_URL) {
    say('starting PostgreSQL...');
    const saved = Number(readState('pg-port'));
    const port = saved && !(await isPortOpen(saved)) ? saved : await freePort();
    writeState('pg-port', String(port));
    const { url } = await startCluster(
      sup,
      { dataDir: path.join(data, 'pg'), port, logFile: path.join(data, 'postgres.log') },
      'railyard',
    );
    env.DATABASE_URL = url;
    writeState('database-url', url);
  }

  for (const name of await runMigrations(env.DATABASE_URL, say)) say(`migrated ${name}`);
  const key = await ensureDevKey(env.DATABASE_URL);
  if (!env.RAILYARD_PAGE_TOKEN_SECRET) {
    env.RAILYARD_PAGE_TOKEN_SECRET = readState('page-token-secret') ?? randomBytes(32).toString('base64url');
    writeState('page-token-secret', env.RAILYARD_PAGE_TOKEN_SECRET);
  }

  const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  const worker = sup.start('worker', tsx, ['worker/main.ts'], { cwd: PROJECT_ROOT, env });
  const api = sup.start('api', tsx, ['api/server.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...env, RAILYARD_API_PORT: String(apiPort) },
  });
  await waitForPort(
    apiPort,
    60_000,
    'The API',
    () => api.child.exitCode === null && worker.child.exitCode === null,
  );

  const base = apiUrl({ port: apiPort });
  console.log(
    [
      '',
      'railyard is running.',
      `  API base URL      ${base}/v1`,
      `  API key (dev)     ${key}`,
      `  API docs          ${base}/v1/docs   (OpenAPI: ${base}/v1/openapi.json)`,
      `  Temporal Web UI   ${env.TEMPORAL_ADDRESS === `127.0.0.1:${TEMPORAL_PORT}` && !process.env.TEMPORAL_ADDRESS ? `http://127.0.0.1:${TEMPORAL_UI_PORT}` : `(external Temporal at ${env.TEMPORAL_ADDRESS})`}`,
      `  Try               curl -s ${base}/v1/getQueue -H 'x-api-token: ${key}' -H 'content-type: application/json' -d '{"repo":{"host":"local","owner":"demo","name":"app"},"targetBranch":"main"}'`,
      'Press Ctrl-C to stop everything.',
      '',
    ].join('\n'),
  );
  const died = await sup.firstUnexpectedExit();
  if (!sup.isStopping) {
    say(`${died.name} exited unexpectedly (code ${String(died.code)}); stopping the rest.`);
    await stop(1);
  }
}

const supervisor = new Supervisor(say);
main(supervisor).catch(async (err: unknown) => {
  say(
    err instanceof SetupError
      ? err.message
      : `start failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  await supervisor.stopAll();
  process.exit(1);
});
