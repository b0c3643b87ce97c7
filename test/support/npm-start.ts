/**
 * The real `npm start` as a terminal runs it: npm in a process group (and session) of its own, so a test
 * can send SIGINT to the whole group the way Ctrl-C does. Its settings put every port on a free one and
 * all state in a scratch folder; the instance's processes (npm, sh, the supervisor, and everything below
 * it) are collected with their start times while it runs, to prove afterwards that none is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../scripts/lib/data-dir';
import { allProcesses, descendants, isSameProcess, type ProcessInfo } from '../../scripts/lib/process-tree';
import { freePort, isPortOpen } from '../../scripts/lib/ports';
import { cleanEnv } from '../../scripts/lib/services';
import { requireTestEnv } from './env';

export interface StartSettings {
  env: NodeJS.ProcessEnv;
  ports: { api: number; temporal: number; temporalUi: number };
  dataDir: string;
}

/** Settings for instances sharing `dir` (one PostgreSQL cluster, initialised once). */
export async function startSettings(dir: string): Promise<StartSettings> {
  const ports = { api: await freePort(), temporal: await freePort(), temporalUi: await freePort() };
  const dataDir = path.join(dir, 'data');
  const env = cleanEnv({
    RAILYARD_DATA_DIR: dataDir,
    RAILYARD_API_PORT: String(ports.api),
    RAILYARD_DEV_TEMPORAL_PORT: String(ports.temporal),
    RAILYARD_DEV_TEMPORAL_UI_PORT: String(ports.temporalUi),
    RAILYARD_SHUTDOWN_GRACE_SECONDS: '3',
    RAILYARD_GIT_ROOT: path.join(dir, 'git'),
    RAILYARD_WORK_ROOT: path.join(dir, 'work'),
    RAILYARD_WORKER_METRICS_PORT: '0',
    RAILYARD_LOG_LEVEL: 'warn',
    // The test run's one workflow bundle: the worker starts without bundling (the worker-process test
    // covers bundling at start).
    RAILYARD_WORKFLOW_BUNDLE: requireTestEnv('TEST_WORKFLOW_BUNDLE'),
  });
  return { env, ports, dataDir };
}

export interface NpmStart {
  child: ChildProcess;
  /** Everything npm start printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<number | null>;
  /** Waits until the output matches. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  /** Records the instance's processes as they are now (call once it runs). */
  snapshot(): ProcessInfo[];
  signalGroup(signal: NodeJS.Signals): void;
}

export function npmStart(s: StartSettings, outFile?: string): NpmStart {
  const child = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: s.env,
    detached: true, // its own session and group: the "terminal" of this test
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (chunk: Buffer) => {
    out += chunk.toString();
    if (outFile) fs.appendFileSync(outFile, chunk);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const seen = new Map<number, ProcessInfo>();
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, ms = 90_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(out)) {
        if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
        if (Date.now() > deadline) throw new Error(`npm start did not print ${String(pattern)}:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    snapshot() {
      const all = allProcesses();
      for (const p of [
        ...all.filter((p) => p.pid === child.pid || p.pgid === child.pid),
        ...descendants(child.pid!, all),
      ])
        seen.set(p.pid, p);
      return [...seen.values()];
    },
    signalGroup(signal) {
      process.kill(-child.pid!, signal);
    },
  };
}

/** The processes of `procs` still alive (same pid and start time). */
export const survivors = (procs: ProcessInfo[]): ProcessInfo[] =>
  procs.filter((p) => isSameProcess(p.pid, p.startTime));

export async function openPorts(ports: number[]): Promise<number[]> {
  const open: number[] = [];
  for (const p of ports) if (await isPortOpen(p)) open.push(p);
  return open;
}

/**
 * `npm run <script>` with the instance's settings; its exit code and output. Asynchronous: a blocked
 * event loop would stop draining the running instance's output pipes, and it writes to them.
 */
export function npmRun(s: StartSettings, script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { cwd: PROJECT_ROOT, env: s.env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}
