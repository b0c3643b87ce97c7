/**
 * `npm test`: every jest test against private PostgreSQL and Temporal instances on free ports in a temp
 * dir, stopped and removed at the end, with `npm run check` (typecheck, lint, format) running beside
 * them; the run fails at the end when the check failed, printing its output. Tests find the instances
 * through TEST_* variables: TEST_DATABASE_URL (migrated), TEST_PG_ADMIN_URL (to create scratch
 * databases; both carry the cluster's password, scripts/lib/pg-password.ts), TEST_PG_TEMPLATE (a
 * migrated template database scratch databases are copied from), TEST_TEMPORAL_ADDRESS,
 * TEST_WORKFLOW_BUNDLE (the workflow code, bundled once per run). Extra arguments go to jest (and skip
 * the check).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { Client } from 'pg';
import { runMigrations } from '../stores/migrate';
import { PROJECT_ROOT } from './lib/data-dir';
import { freePort } from './lib/ports';
import { machineCpu, treeCpuSeconds } from './lib/process-cpu';
import { SetupError, startCluster } from './lib/postgres';
import { Supervisor } from './lib/supervisor';
import { startDevServer } from './lib/temporal';

const say = (msg: string) => console.error(`railyard test: ${msg}`);

/** The migrated database scratch databases are copied from (test/support/postgres.ts). */
const TEMPLATE_DATABASE = 'railyard_template';

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(127));
  });
}

interface Check {
  /** Its exit code and everything it printed. */
  done: Promise<{ code: number; output: string }>;
  finished(): boolean;
  stop(): void;
}

/**
 * `npm run check` beside the tests, its output kept for the end. Niced: the tests' timing matters more,
 * and the check has the whole jest run to finish in. Its own process group, so a stop reaches tsc too.
 */
function startCheck(): Check {
  const child = spawn('nice', ['-n', '10', 'npm', 'run', '--silent', 'check'], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const done = new Promise<{ code: number; output: string }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
    child.on('error', (err) => resolve({ code: 127, output: `could not start: ${err.message}` }));
  });
  return {
    done,
    finished: () => child.exitCode !== null || child.signalCode !== null,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    },
  };
}

/** Waits for the check and says how it went; false when it failed (its output printed, framed). */
async function reportCheck(check: Check): Promise<boolean> {
  if (!check.finished()) say('waiting for npm run check (typecheck, lint, format) to finish...');
  const { code, output } = await check.done;
  if (code === 0) {
    say('npm run check (typecheck, lint, format) passed.');
    return true;
  }
  const rule = '='.repeat(100);
  console.error(`\n${rule}\nnpm run check FAILED (exit ${code}); its output:\n${rule}`);
  console.error(output.trimEnd());
  console.error(`${rule}\n`);
  say('npm run check failed; fix the errors above (npm run format rewrites formatting). The run fails.');
  return false;
}

/** Creates the template database, migrates it, and closes it to connections (a copy needs none). */
async function migrateTemplate(adminUrl: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    const url = new URL(adminUrl);
    url.pathname = `/${TEMPLATE_DATABASE}`;
    await runMigrations(url.toString());
    await admin.query(`ALTER DATABASE ${TEMPLATE_DATABASE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await admin.end();
  }
}

async function bundleWorkflows(tmp: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: say, error: say, log() {} },
  });
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  return bundlePath;
}

async function main(sup: Supervisor, tmp: string, checkStarted: (c: Check) => void): Promise<number> {
  const jestArgs = process.argv.slice(2);
  const workers = process.env.RAILYARD_TEST_WORKERS;
  if (workers !== undefined && !/^[1-9]\d?$/.test(workers))
    throw new Error(`RAILYARD_TEST_WORKERS must be a whole number from 1 to 99, not "${workers}".`);
  let check: Check | null = null;
  if (process.env.RAILYARD_SKIP_CHECK !== '1' && jestArgs.length === 0) {
    say('npm run check (typecheck, lint, format) runs beside the tests; its result comes at the end.');
    check = startCheck();
    checkStarted(check);
  }
  say('starting PostgreSQL and the Temporal dev server on free ports, bundling workflow code...');
  const pgPort = await freePort();
  let temporalPort = await freePort();
  // A dev server that dies while starting (a port taken between choosing and binding it) is started
  // once more on another port, said plainly, rather than failing every test of the run.
  const startOn = (logName: string) =>
    startDevServer(sup, { port: temporalPort, namespace: 'default', logFile: path.join(tmp, logName) });
  let temporalPid: number | undefined;
  const temporal = async () => {
    try {
      const managed = await startOn('temporal.log');
      temporalPid = managed.child.pid;
      return managed;
    } catch (err) {
      say(`${(err as Error).message} Starting it again on another port.`);
      temporalPort = await freePort();
      const managed = await startOn('temporal-2.log');
      temporalPid = managed.child.pid;
      return managed;
    }
  };
  const stack = async () => {
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
      temporal(),
    ]);
    await Promise.all([runMigrations(pg.url), migrateTemplate(pg.adminUrl)]);
    return pg;
  };
  const bundling = bundleWorkflows(tmp);
  // Awaited below; a stack that fails first must not leave its failure unhandled meanwhile.
  bundling.catch(() => undefined);
  const pg = await stack();
  const bundlePath = await bundling;

  // The launcher's own switches must not reach processes the tests start (they reject unknown settings).
  const {
    RAILYARD_SKIP_CHECK: _skip,
    RAILYARD_TEST_WORKERS: _workers,
    RAILYARD_TEST_REPORT: report,
    ...inherited
  } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    TEST_DATABASE_URL: pg.url,
    TEST_PG_ADMIN_URL: pg.adminUrl,
    TEST_PG_TEMPLATE: TEMPLATE_DATABASE,
    TEST_TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEST_TEMPORAL_CLI: path.join(PROJECT_ROOT, '.tools', 'venv', 'bin', 'temporal'),
    TEST_WORKFLOW_BUNDLE: bundlePath,
    TEST_TMP: tmp,
  };
  say('running jest...');
  // jest.config.js runs four workers (right for two cores); RAILYARD_TEST_WORKERS sets another number.
  const workerArgs = workers ? [`--maxWorkers=${workers}`] : [];
  // RAILYARD_TEST_REPORT: jest's JSON report there too (scripts/test-durations.ts reads it), check kept.
  if (report) workerArgs.push('--json', `--outputFile=${path.resolve(report)}`);
  const servers = () => ({
    temporal: treeCpuSeconds(temporalPid),
    postgres: treeCpuSeconds(pg.managed.child.pid),
  });
  const before = { machine: machineCpu(), servers: servers(), at: Date.now() };
  const jest = await run(
    path.join(PROJECT_ROOT, 'node_modules', '.bin', 'jest'),
    ['--ci', ...workerArgs, ...jestArgs],
    env,
  );
  sayWhereCpuWent(before, { machine: machineCpu(), servers: servers(), at: Date.now() });
  const checked = check ? await reportCheck(check) : true;
  const clean = treeStayedClean();
  return jest !== 0 ? jest : checked && clean ? 0 : 1;
}

interface CpuReading {
  machine: ReturnType<typeof machineCpu>;
  servers: { temporal: number | undefined; postgres: number | undefined };
  at: number;
}

/**
 * While jest ran: the CPU the two servers used (the per-file figures jest printed leave them out) and how
 * busy the whole machine was, so a slow run says whether CPU ran out (busy near the cores' capacity:
 * only less work helps), sat idle (more parallelism would help), or went to other machines (steal).
 */
function sayWhereCpuWent(a: CpuReading, b: CpuReading): void {
  const wall = (b.at - a.at) / 1000;
  const delta = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? 'unknown' : `${(y - x).toFixed(0)} CPU-s`;
  let machine = '';
  if (a.machine && b.machine) {
    const busy = b.machine.busy - a.machine.busy;
    const steal = b.machine.steal - a.machine.steal;
    const idle = b.machine.idle - a.machine.idle;
    const all = busy + steal + idle;
    const pct = (x: number) => `${all > 0 ? ((100 * x) / all).toFixed(0) : '0'} %`;
    machine =
      `; the machine (${os.cpus().length} cores, ${all.toFixed(0)} CPU-s in ${wall.toFixed(0)} s) was busy ` +
      `${busy.toFixed(0)} CPU-s (${pct(busy)}), idle ${idle.toFixed(0)} (${pct(idle)}), stolen by the ` +
      `host ${steal.toFixed(0)} (${pct(steal)}), with whatever else ran on it`;
  }
  say(
    `while jest ran: the Temporal server used ${delta(a.servers.temporal, b.servers.temporal)}, ` +
      `PostgreSQL ${delta(a.servers.postgres, b.servers.postgres)}${machine}.`,
  );
}

/**
 * A checkout that was clean when `npm test` started (TEST_TREE_CLEAN_AT_START, set by test.sh before
 * its setup steps) must be clean at the end: no tracked file changed, no file git does not ignore
 * added. A checkout with changes of its own is not judged (they may be anyone's, made meanwhile).
 */
function treeStayedClean(): boolean {
  if (process.env.TEST_TREE_CLEAN_AT_START !== '1') return true;
  const status = execFileSync('git', ['status', '--porcelain'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  const changed = status.split('\n').filter((line) => line.trim() !== '');
  if (changed.length === 0) return true;
  say(
    `this checkout was clean when npm test started and is not now (git status: ${changed.slice(0, 20).join('; ')}` +
      `${changed.length > 20 ? `; ${changed.length - 20} more` : ''}): setup steps and tests must leave tracked ` +
      'files as they are and write only to ignored or temporary folders.',
  );
  return false;
}

const supervisor = new Supervisor(say);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-test-'));
// The PostgreSQL user (unprivileged when we are root) must be able to reach its data dir inside.
fs.chmodSync(tmp, 0o755);
let check: Check | null = null;
const startedAt = Date.now();
const finish = async (code: number) => {
  check?.stop();
  await supervisor.stopAll(10_000);
  fs.rmSync(tmp, { recursive: true, force: true });
  say(`${code === 0 ? 'passed' : 'failed'} after ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`);
  process.exit(code);
};
process.on('SIGINT', () => void finish(130));
process.on('SIGTERM', () => void finish(143));
main(supervisor, tmp, (c) => (check = c))
  .then(finish)
  .catch(async (err: unknown) => {
    say(
      err instanceof SetupError
        ? err.message
        : `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    await finish(1);
  });
