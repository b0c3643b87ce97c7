/**
 * Targets for external-entity attacks that notice being touched: a file holding a random marker, a
 * named pipe (FIFO) that notices any process opening it for reading, and a TCP listener that counts
 * connections. An XML parser that resolved an entity pointing at one of them would copy the marker into
 * what it answers or stores, open the pipe, or connect to the listener; the bad-input rows assert that
 * none of this happens.
 *
 * The pipe is watched by a child shell whose open of it for writing completes as soon as anyone opens
 * it for reading (blocking or not), and never otherwise; the shell then says so and exits, which ends
 * the reader's read. Being a separate process, it also works when the reader blocks this one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Sentinel {
  /** The secret file's whole content; it must never appear in an answer. */
  readonly marker: string;
  /** file:// URL of the secret file. */
  readonly fileUrl: string;
  /** file:// URL of the named pipe. */
  readonly pipeUrl: string;
  /** http:// URL on the listener. */
  readonly httpUrl: string;
  /** Every touch so far ("pipe opened", "connection"); empty when nothing reached for a target. */
  touches(): readonly string[];
  close(): Promise<void>;
}

export async function startSentinel(): Promise<Sentinel> {
  const dir = fs.mkdtempSync(path.join(process.env.TEST_TMP ?? os.tmpdir(), 'sentinel-'));
  const marker = `SENTINEL-${randomBytes(12).toString('hex')}`;
  const file = path.join(dir, 'secret.txt');
  fs.writeFileSync(file, marker);
  const pipe = path.join(dir, 'pipe');
  execFileSync('mkfifo', [pipe]);

  const touches: string[] = [];
  let closing = false;
  const watcher = spawn('sh', ['-c', 'exec 3>"$0" && echo opened', pipe], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  watcher.stdout.on('data', () => {
    if (!closing) touches.push('pipe opened');
  });
  const watcherExited = new Promise<void>((resolve) => watcher.on('exit', () => resolve()));

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    touches.push('connection');
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    marker,
    fileUrl: pathToFileURL(file).href,
    pipeUrl: pathToFileURL(pipe).href,
    httpUrl: `http://127.0.0.1:${port}/entity`,
    touches: () => [...touches],
    async close() {
      closing = true;
      // Release the watcher by being its reader (a no-op when it was released already).
      const fd = fs.openSync(pipe, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      await watcherExited;
      fs.closeSync(fd);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
