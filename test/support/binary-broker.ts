/**
 * Binary-safe commands started by a small helper process instead of forked from the jest worker: the
 * fakehub's `git http-backend`, one per git HTTP request of every GitHub story, whose input and output
 * are packfiles (the worker's process broker carries text only).
 *
 * Why: starting a process copies the page tables of the one that starts it, 5-15 ms of a large jest
 * worker's CPU each time (sync-broker.ts has the figures); the helper is plain Node with a small heap.
 *
 * Rules and invariants:
 *  - One helper per broker, started on first use and unreferenced while idle (it never holds jest
 *    open); `close()` ends it, and requests in flight then fail.
 *  - Messages use Node's advanced IPC serialisation, so buffers cross as bytes.
 *  - A command's whole standard output and error are buffered (the callers buffer them anyway), its
 *    input is written and closed, and its environment is exactly the one given.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BinaryRequest {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  input: Buffer;
}

export interface BinaryOutcome {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

export interface BinaryBroker {
  run(request: BinaryRequest): Promise<BinaryOutcome>;
  close(): void;
}

const HELPER = `
const { spawn } = require('node:child_process');
process.on('message', (m) => {
  const reply = (code, stdout, stderr, error) => process.send({ id: m.id, code, stdout, stderr, error });
  let child;
  try {
    child = spawn(m.file, m.args, { env: m.env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    return reply(null, Buffer.alloc(0), Buffer.alloc(0), String(err));
  }
  const out = [];
  const err = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  child.on('error', (e) => reply(null, Buffer.alloc(0), Buffer.alloc(0), String(e)));
  child.on('close', (code) => reply(code, Buffer.concat(out), Buffer.concat(err), null));
  child.stdin.on('error', () => undefined);
  child.stdin.end(Buffer.from(m.input));
});
`;

interface Reply {
  id: number;
  code: number | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
  error: string | null;
}

export function createBinaryBroker(): BinaryBroker {
  let helper: ChildProcess | null = null;
  let nextId = 1;
  type Waiting = { child: ChildProcess; resolve: (o: BinaryOutcome) => void; reject: (e: Error) => void };
  const pending = new Map<number, Waiting>();

  const hold = (child: ChildProcess) => {
    if ([...pending.values()].some((w) => w.child === child)) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  };

  function start(): ChildProcess {
    const child = spawn(process.execPath, ['-e', HELPER], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    child.on('message', (m: Reply) => {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      hold(child);
      if (m.error !== null) waiting.reject(new Error(m.error));
      else waiting.resolve({ code: m.code, stdout: Buffer.from(m.stdout), stderr: Buffer.from(m.stderr) });
    });
    // Only this helper's requests fail: a closed helper's exit must not fail its successor's.
    const gone = (why: string) => {
      if (helper === child) helper = null;
      for (const [id, w] of pending)
        if (w.child === child) {
          pending.delete(id);
          w.reject(new Error(`the binary broker ${why}`));
        }
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    return child;
  }

  return {
    run(request) {
      return new Promise((resolve, reject) => {
        helper ??= start();
        const child = helper;
        const id = nextId++;
        pending.set(id, { child, resolve, reject });
        hold(child);
        child.send({ id, ...request, args: [...request.args] }, (err) => {
          if (err && pending.delete(id)) reject(err);
        });
      });
    },
    close() {
      const child = helper;
      helper = null;
      child?.kill('SIGKILL');
    },
  };
}
