/**
 * `npm test`: `npm run check`, then every jest test against private PostgreSQL and Temporal instances
 * on free ports in a temp dir, stopped and removed at the end. Tests find them through TEST_* variables:
 * TEST_DATABASE_URL (migrated), TEST_PG_ADMIN_URL (to create scratch databases; both carry the cluster's
 * password, scripts/lib/pg-password.ts), TEST_TEMPORAL_ADDRESS,
 * TEST_WORKFLOW_BUNDLE (the workflow code, bundled once per run). Extra arguments go to jest.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { runMigrations } from '../stores/migrate';
import { PROJECT_ROOT } from './lib/data-dir';
import { freePort } from './lib/ports';
import { SetupError, startCluster } from './lib/postgres';
import { Supervisor } from './lib/supervisor';
import { startDevServer } from './lib/temporal';

const say = (msg: string) => console.error(`railyard test: ${msg}`);

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(127));
  });
}

async function main(sup: Supervisor, tmp: string): Promise<number> {
  const jestArgs = process.argv.slice(2);
  if (process.env.RAILYARD_SKIP_CHECK !== '1' && jestArgs.length === 0) {
    say('npm run check (typecheck, lint, format)...');
    if ((await run('npm', ['run', '--silent', 'check'])) !== 0) {
      say('npm run check failed; fix the errors above (npm run format rewrites formatting).');
      return 1;
    }
  }
  say('starting PostgreSQL and the Temporal dev server on free ports...');
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const [pg] = await Promise.all([
    startCluster(
      sup,
      {
        dataDir: path.join(tmp, 'pg'),
        port: pgPort,
        ephemeral: true,
        logFile: path.join(tmp, 'postgres.log'),
      },
      'railyard',
    ),
    startDevServer(sup, {
      port: temporalPort,
      namespace: 'default',
      logFile: path.join(tmp, 'temporal.log'),
    }),
  ]);
  await runMigrations(pg.url);
  say('bundling workflow code...');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: say, error: say, log() {} },
  });
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);

  // The launcher's own switch must not reach processes the tests start (they reject unknown settings).
  const { RAILYARD_SKIP_CHECK: _skip, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    TEST_DATABASE_URL: pg.url,
    TEST_PG_ADMIN_URL: pg.adminUrl,
    TEST_TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEST_TEMPORAL_CLI: path.join(PROJECT_ROOT, '.tools', 'venv', 'bin', 'temporal'),
    TEST_WORKFLOW_BUNDLE: bundlePath,
    TEST_TMP: tmp,
  };
  say('running jest...');
  return run(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'jest'), ['--ci', ...jestArgs], env);
}

const supervisor = new Supervisor(say);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-test-'));
// The PostgreSQL user (unprivileged when we are root) must be able to reach its data dir inside.
fs.chmodSync(tmp, 0o755);
const finish = async (code: number) => {
  await supervisor.stopAll(10_000);
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(code);
};
process.on('SIGINT', () => void finish(130));
process.on('SIGTERM', () => void finish(143));
main(supervisor, tmp)
  .then(finish)
  .catch(async (err: unknown) => {
    say(
      err instanceof SetupError
        ? err.message
        : `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    await finish(1);
  });
