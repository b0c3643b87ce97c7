/**
 * Running short external commands (git, mostly) from a large process without paying for it.
 *
 * Why: Node's child_process forks the calling process before it execs the command (libuv, Linux), and a
 * fork copies the caller's page tables. In a worker holding hundreds of megabytes (workflow contexts,
 * the Temporal core, the module graph) each spawn costs milliseconds of CPU and blocks the event loop
 * for as long, so a burst of git calls slows every workflow task in the process. The process broker is
 * one small child process that does the forking instead: the large process only exchanges a message.
 *
 * Rules:
 *  - A runner runs a file with arguments (never a shell), an explicit environment, optional standard
 *    input, a time limit and an output limit; a command killed by either, or one that cannot start,
 *    is a `failed` outcome with the reason, and any exit code is an `exited` outcome (callers decide
 *    which codes are answers).
 *  - The broker starts on first use and again after it died; requests in flight when it dies fail
 *    (they may or may not have run, as when any process is killed) and are never re-sent.
 *  - An idle broker does not keep its parent alive, and it ends, killing what it runs, when its parent
 *    goes (the IPC channel closes).
 * Dependencies through the factory: whoever composes a process decides whether it gets a broker.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';

export interface ProcessRequest {
  file: string;
  args: readonly string[];
  /** The whole environment of the command (nothing is inherited). */
  env: Record<string, string>;
  /** Its working directory (default: the runner's). */
  cwd?: string;
  /** Written to its standard input, which is then closed. */
  input?: string;
  timeoutMs: number;
  /** Bytes of standard output or error beyond which the command is killed. */
  maxBuffer: number;
}

export type ProcessOutcome =
  { kind: 'exited'; exitCode: number; stdout: string; stderr: string } | { kind: 'failed'; reason: string };

export interface ProcessRunner {
  run(request: ProcessRequest): Promise<ProcessOutcome>;
}

export interface ProcessBroker extends ProcessRunner {
  /** Ends the broker process (requests in flight fail); a later `run` starts a new one. */
  close(): void;
}

/** Runs each command from this process. */
export function createDirectProcessRunner(): ProcessRunner {
  return { run: runHere };
}

/** Runs each command from one small child process started on first use. */
export function createProcessBroker(): ProcessBroker {
  let broker: ChildProcess | null = null;
  let nextId = 1;
  // Each request remembers the broker it went to: a broker's end fails only its own requests.
  const pending = new Map<number, { child: ChildProcess; done: (outcome: ProcessOutcome) => void }>();

  /** Holds the parent's event loop open exactly while a request is in flight. */
  function hold(child: ChildProcess): void {
    if ([...pending.values()].some((p) => p.child === child)) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  function start(): ChildProcess {
    const child = spawn(process.execPath, ['-e', BROKER_PROGRAM], {
      // Plain node (spawn passes none of the parent's flags, NODE_OPTIONS is not in env): the broker is
      // plain JavaScript and needs no loader.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on('message', (m: BrokerReply) => {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      hold(child);
      waiting.done(m.outcome);
    });
    // A closed broker exits after its successor may have started: its exit must not fail their work.
    const gone = (why: string) => {
      if (broker === child) broker = null;
      for (const [id, waiting] of pending)
        if (waiting.child === child) {
          pending.delete(id);
          waiting.done({ kind: 'failed', reason: `the process broker ${why}` });
        }
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    return child;
  }

  return {
    run(request) {
      return new Promise<ProcessOutcome>((resolve) => {
        broker ??= start();
        const child = broker;
        const id = nextId++;
        pending.set(id, { child, done: resolve });
        hold(child);
        const message: BrokerRequest = { id, ...request, args: [...request.args] };
        try {
          child.send(message, (err) => {
            if (err && pending.delete(id))
              resolve({ kind: 'failed', reason: `the process broker ${err.message}` });
          });
        } catch (err) {
          if (pending.delete(id)) resolve({ kind: 'failed', reason: `the process broker: ${String(err)}` });
        }
      });
    },
    close() {
      const child = broker;
      broker = null;
      child?.kill('SIGKILL');
    },
  };
}

interface BrokerRequest extends ProcessRequest {
  id: number;
  args: string[];
}

interface BrokerReply {
  id: number;
  outcome: ProcessOutcome;
}

function runHere(request: ProcessRequest): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    const child = execFile(
      request.file,
      [...request.args],
      {
        env: request.env,
        cwd: request.cwd,
        maxBuffer: request.maxBuffer,
        timeout: request.timeoutMs,
        killSignal: 'SIGKILL',
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number')
          resolve({
            kind: 'failed',
            reason: error.killed ? 'was killed (timeout or output limit)' : error.message,
          });
        else resolve({ kind: 'exited', exitCode: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(request.input ?? '');
  });
}

/**
 * The broker process's whole program, run by `node -e`. A string, not a function's source: loaders
 * rewrite functions (tsx adds `__name` calls that exist only in the parent). It decides outcomes exactly
 * as `runHere` does; the unit tests hold both runners to the same table.
 */
const BROKER_PROGRAM = `
const { execFile } = require('node:child_process');
const running = new Set();
process.on('message', (m) => {
  const child = execFile(
    m.file,
    m.args,
    { env: m.env, cwd: m.cwd, maxBuffer: m.maxBuffer, timeout: m.timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', windowsHide: true },
    (error, stdout, stderr) => {
      running.delete(child);
      const outcome =
        error && typeof error.code !== 'number'
          ? { kind: 'failed', reason: error.killed ? 'was killed (timeout or output limit)' : error.message }
          : { kind: 'exited', exitCode: error ? Number(error.code) : 0, stdout, stderr };
      process.send({ id: m.id, outcome });
    },
  );
  running.add(child);
  child.stdin.on('error', () => undefined);
  child.stdin.end(m.input ?? '');
});
// The parent is gone: nothing of ours outlives it.
process.on('disconnect', () => {
  for (const child of running) child.kill('SIGKILL');
  process.exit(0);
});
`;
