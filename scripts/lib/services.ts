/**
 * The railyard processes as services that can be killed and started again: the API (api/server.ts),
 * the worker (worker/main.ts) and an executor (worker/executor.ts, issue 17), each one Node process with railyard's require hook (ts-node.ts), each in its own process group so a SIGKILL
 * also reaches what it started (test commands). A service counts as up once it proved it: the API
 * answers /healthz, the worker and the executor printed that they poll their task queue.
 *
 * Children get a clean environment: the parent's RAILYARD_*, DATABASE_URL and TEMPORAL_* settings
 * never leak into them (the processes refuse unknown RAILYARD_* names), only what `env` says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiUrl } from '../../platform/public-url';
import { PROJECT_ROOT } from './data-dir';
import type { Managed, Supervisor } from './supervisor';
import { tsNode } from './ts-node';

const LEAKY = /^(RAILYARD_|DATABASE_URL$|TEMPORAL_|TEST_)/;

export interface Service {
  readonly name: string;
  /** Starts the process and resolves once it is up. */
  start(): Promise<void>;
  /** Sends `signal` to its process group and waits for it to exit (no-op when not running). */
  stop(signal: NodeJS.Signals): Promise<void>;
  running(): boolean;
  /** Exits nobody asked for (a crash), counted since creation. */
  readonly unexpectedExits: number;
}

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!LEAKY.test(k)) env[k] = v;
  return { ...env, ...extra };
}

async function until(what: string, ms: number, ok: () => Promise<boolean>, alive: () => boolean) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok()) return;
    if (!alive()) throw new Error(`${what} exited while starting`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

/** The last lines of a log file, or a note that there is none. */
function logTail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function createService(
  sup: Supervisor,
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  isUp: (m: Managed, started: { ready: boolean }) => Promise<boolean>,
): Service {
  let current: Managed | null = null;
  let expected = false;
  let crashes = 0;
  const alive = () =>
    current !== null && current.child.exitCode === null && current.child.signalCode === null;
  return {
    name,
    get unexpectedExits() {
      return crashes;
    },
    running: alive,
    async start() {
      if (alive()) return;
      expected = false;
      const [command, args] = tsNode(entry);
      const m = sup.start(name, command, args, { cwd: PROJECT_ROOT, env, quiet: true, logFile });
      current = m;
      const state = { ready: false };
      m.child.stderr?.on('data', (chunk: Buffer) => {
        // The worker's Temporal SDK says it polls; the executor says it takes runs from the API.
        const text = chunk.toString();
        if (text.includes('polling task queue') || text.includes('taking test runs from')) state.ready = true;
      });
      void m.exited.then(() => {
        if (!expected && current === m) crashes++;
      });
      await until(
        name,
        120_000,
        () => isUp(m, state),
        () => m.child.exitCode === null,
      ).catch((err: Error) => {
        // Say why: the last lines the process wrote (its log is otherwise removed with the run).
        const { exitCode, signalCode } = m.child;
        const how = exitCode !== null || signalCode ? ` (exit code ${exitCode}, signal ${signalCode})` : '';
        throw new Error(`${err.message}${how}; the end of ${logFile}:\n${logTail(logFile)}`);
      });
    },
    async stop(signal) {
      if (!alive() || !current) return;
      expected = true;
      try {
        process.kill(-current.child.pid!, signal);
      } catch {
        /* already gone */
      }
      await current.exited;
    },
  };
}

export interface ServiceSettings {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  gitRoot: string;
  workRoot: string;
  apiPort: number;
  logDir: string;
  /** The credential of the stack's executor (lib/executor-credential.ts). */
  executorToken: string;
  /** Further settings of both processes (e.g. RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS for the fuzzer). */
  env?: Record<string, string>;
}

/** `name` tells replicas apart (api-2, worker-2, ...): its log file is named after it. */
export function apiService(sup: Supervisor, s: ServiceSettings, name = 'api'): Service {
  const env = cleanEnv({
    DATABASE_URL: s.databaseUrl,
    TEMPORAL_ADDRESS: s.temporalAddress,
    RAILYARD_TASK_QUEUE: s.taskQueue,
    RAILYARD_GIT_ROOT: s.gitRoot,
    RAILYARD_API_HOST: '127.0.0.1',
    RAILYARD_API_PORT: String(s.apiPort),
    RAILYARD_LOG_LEVEL: 'info',
    ...s.env,
  });
  const healthy = async () => {
    try {
      return (await fetch(`${apiUrl({ port: s.apiPort })}/healthz`)).ok;
    } catch {
      return false;
    }
  };
  return createService(sup, name, 'api/server.ts', env, path.join(s.logDir, `${name}.log`), healthy);
}

export function workerService(sup: Supervisor, s: ServiceSettings, name = 'worker'): Service {
  const env = cleanEnv({
    DATABASE_URL: s.databaseUrl,
    TEMPORAL_ADDRESS: s.temporalAddress,
    RAILYARD_TASK_QUEUE: s.taskQueue,
    RAILYARD_GIT_ROOT: s.gitRoot,
    RAILYARD_WORK_ROOT: s.workRoot,
    RAILYARD_WORKER_METRICS_PORT: '0',
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '1',
    RAILYARD_LOG_LEVEL: 'warn',
    ...s.env,
  });
  return createService(sup, name, 'worker/main.ts', env, path.join(s.logDir, `${name}.log`), (_m, st) =>
    Promise.resolve(st.ready),
  );
}

/**
 * An executor: no database URL, secret or Temporal address; its runs from the API with its credential;
 * only executor settings of `env`.
 */
export function executorService(sup: Supervisor, s: ServiceSettings, name = 'executor'): Service {
  const own = Object.entries(s.env ?? {}).filter(([k]) => /^RAILYARD_(EXECUTOR|SANDBOX)_/.test(k));
  const env = cleanEnv({
    RAILYARD_EXECUTOR_API_URL: apiUrl({ port: s.apiPort }),
    RAILYARD_EXECUTOR_TOKEN: s.executorToken,
    RAILYARD_EXECUTOR_WORK_ROOT: path.join(s.workRoot, name),
    RAILYARD_EXECUTOR_HEALTH_PORT: '0',
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '1',
    RAILYARD_LOG_LEVEL: 'warn',
    ...Object.fromEntries(own),
  });
  return createService(sup, name, 'worker/executor.ts', env, path.join(s.logDir, `${name}.log`), (_m, st) =>
    Promise.resolve(st.ready),
  );
}
