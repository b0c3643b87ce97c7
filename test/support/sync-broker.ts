/**
 * Synchronous commands for test fixtures (`git commit`, `git push` while a test sets up its
 * repositories), started by a small helper process instead of forked from the jest worker.
 *
 * Why: starting a process copies the page tables of the one that starts it. A jest worker holds
 * hundreds of megabytes, so each `execFileSync` from it cost 5-15 ms of CPU before git even ran
 * (measured: 0.7 ms at 50 MB, 14 ms at 1.1 GB); fixtures run thousands. The helper is plain Node
 * with a small heap, and answers over two named pipes, so the caller can still block on the answer
 * the way execFileSync does.
 *
 * Rules and invariants:
 *  - One helper per broker, started on first use; `close()` ends it, and it also ends by itself when
 *    the process that opened it exits (the request pipe reaches end of file).
 *  - A request is one JSON line; an answer is an 8-digit length then that many bytes of JSON. The
 *    caller is the pipes' only writer and reader, so messages never interleave.
 *  - Semantics of execFileSync with `encoding: 'utf8'`: the standard output is returned; a non-zero
 *    exit throws an Error carrying `status`, `stdout` and `stderr`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SyncOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
}

export interface SyncBroker {
  /** Like `execFileSync(file, args, { encoding: 'utf8' })`, run by the helper. */
  run(file: string, args: readonly string[], options?: SyncOptions): string;
  close(): void;
}

/** The helper: reads request lines, runs each with spawnSync, writes the framed answer. */
const HELPER = `
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const [req, res] = process.argv.slice(1);
// Opened in the caller's order (each open waits for the other end): requests, then answers.
const input = fs.createReadStream(null, { fd: fs.openSync(req, 'r'), encoding: 'utf8' });
const out = fs.openSync(res, 'w');
let buffer = '';
input.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const r = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    const p = spawnSync(r.file, r.args, { cwd: r.cwd, env: r.env, input: r.input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const body = Buffer.from(JSON.stringify({ status: p.status, signal: p.signal, stdout: p.stdout ?? '', stderr: p.stderr ?? '', error: p.error ? String(p.error.message) : null }));
    fs.writeSync(out, String(body.length).padStart(8, '0'));
    let done = 0;
    while (done < body.length) done += fs.writeSync(out, body, done);
  }
});
input.on('end', () => process.exit(0));
`;

interface Answer {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  error: string | null;
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Opens the pipe's write end once a reader has it open; throws after `ms`. */
function openWriterWithin(fifo: string, ms: number): number {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline)
        throw new Error(`the sync broker did not start: ${String(err)}`);
      pause(5);
    }
  }
}

/** Writes all of `data`, waiting while the pipe is full (the write end does not block). */
function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) {
    try {
      done += fs.writeSync(fd, data, done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      pause(1);
    }
  }
}

export function createSyncBroker(): SyncBroker {
  let open: { dir: string; req: number; res: number } | null = null;

  function start() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-sync-broker-'));
    const req = path.join(dir, 'req');
    const res = path.join(dir, 'res');
    execFileSync('mkfifo', [req, res]);
    const child = spawn(process.execPath, ['-e', HELPER, req, res], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: false,
    });
    child.unref();
    // The helper opens req then res, each open waiting for the other end, so do we; req without
    // blocking, retried, so a helper that never comes fails here instead of hanging the test.
    const reqFd = openWriterWithin(req, 10_000);
    const resFd = fs.openSync(res, 'r');
    return { dir, req: reqFd, res: resFd };
  }

  function readExactly(fd: number, n: number): Buffer {
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, buf, got, n - got, null);
      if (r === 0) throw new Error('the sync broker exited');
      got += r;
    }
    return buf;
  }

  return {
    run(file, args, options = {}) {
      open ??= start();
      const request = JSON.stringify({
        file,
        args,
        cwd: options.cwd,
        env: options.env ?? process.env,
        input: options.input,
      });
      writeAll(open.req, Buffer.from(`${request}\n`));
      const length = Number(readExactly(open.res, 8).toString());
      const answer = JSON.parse(readExactly(open.res, length).toString()) as Answer;
      if (answer.error !== null || answer.status !== 0) {
        const why = answer.error ?? (answer.signal ? `signal ${answer.signal}` : `exit ${answer.status}`);
        const err = new Error(`Command failed (${why}): ${file} ${args.join(' ')}\n${answer.stderr}`);
        Object.assign(err, { status: answer.status, stdout: answer.stdout, stderr: answer.stderr });
        throw err;
      }
      return answer.stdout;
    },
    close() {
      if (!open) return;
      fs.closeSync(open.req);
      fs.closeSync(open.res);
      fs.rmSync(open.dir, { recursive: true, force: true });
      open = null;
    },
  };
}
