/**
 * The executor's content download against an API that stalls (ADR 0024): a download with no answer,
 * or no bytes, for `stallMs` is cut with a reason and retried within `retryForMs`; one that keeps
 * streaming slowly is not cut, however long it takes in all.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { downloadRunContent } from '../../../executor/content-fetch';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

let server: http.Server;
let dir: string;
let handle: Handler;
let requests = 0;

// A server of its own for each test: a connection fetch pooled from another test is not reused.
beforeEach(async () => {
  requests = 0;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-fetch-'));
  server = http.createServer((req, res) => handle(req, res, ++requests));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const download = (opts: { stallMs: number; retryForMs: number }) =>
  downloadRunContent(path.join(dir, 'content.bundle'), {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    jobId: 'job-1',
    credential: 'rye_x',
    maxBytes: 1024 * 1024,
    ...opts,
  });

test('an API that never answers is cut after the stall, with the reason', async () => {
  handle = () => {}; // headers never sent
  await expect(download({ stallMs: 200, retryForMs: 0 })).rejects.toThrow(
    /^the run's content from http:\/\/127\.0\.0\.1:\d+ stalled: nothing for 200 ms$/,
  );
  expect(requests).toBe(1);
});

test('a body that stops half way is cut too', async () => {
  handle = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.alloc(10));
  };
  await expect(download({ stallMs: 200, retryForMs: 0 })).rejects.toThrow(/stalled: nothing for 200 ms/);
});

test('a stalled download is tried again, and the next answer is taken', async () => {
  handle = (_req, res, n) => {
    if (n === 1) return; // the first request stalls
    res.end(Buffer.from('bundle'));
  };
  await download({ stallMs: 200, retryForMs: 10_000 });
  expect(requests).toBe(2);
  expect(fs.readFileSync(path.join(dir, 'content.bundle'), 'utf8')).toBe('bundle');
});

test('a slow download that keeps streaming is not cut, although it takes longer than the stall', async () => {
  handle = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const tick = setInterval(() => {
      res.write('x');
      if (++sent === 15) {
        clearInterval(tick);
        res.end();
      }
    }, 100);
  };
  const started = Date.now();
  await download({ stallMs: 1_000, retryForMs: 0 });
  expect(Date.now() - started).toBeGreaterThan(1_000);
  expect(fs.readFileSync(path.join(dir, 'content.bundle'), 'utf8')).toBe('x'.repeat(15));
  expect(requests).toBe(1);
});
