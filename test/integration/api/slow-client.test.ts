/**
 * Slow clients cannot hold a connection: on a real socket to the real app (listening on loopback with
 * small bounds), a client that sends its headers and then dribbles the body a byte at a time, or
 * dribbles the headers themselves, gets 408 with a plain-text sentence once the request or headers
 * bound passes, and the connection is closed. Without the bounds Node would wait 60 s for headers and 300 s
 * for a request, the connection held all along.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';

const HEADERS_MS = 300;
const REQUEST_MS = 600;
/** The bound plus Node's checking interval plus a generous allowance for a loaded machine. */
const WITHIN_MS = 3_000;

let pool: Pool;
let app: FastifyInstance;
let port: number;
let key: string;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('api_slow_client'));
  key = (await createApiKeyStore(pool).create('acme')).key;
  ({ app } = await buildTestApp(pool, {
    timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS, idleMs: 10_000 },
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
  await pool.end();
});

interface Outcome {
  /** Everything the server wrote before it closed. */
  received: string;
  /** From the first byte sent to the close. */
  ms: number;
}

/**
 * Opens a connection, writes `head`, then one byte of `drip` every 50 ms (never all of it) until the
 * server closes the connection or `WITHIN_MS` * 2 passes.
 */
function dribble(head: string, drip: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    let started = 0;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${WITHIN_MS * 2} ms`));
    }, WITHIN_MS * 2);
    socket.on('connect', () => {
      started = performance.now();
      socket.write(head);
      timer = setInterval(() => {
        if (sent < drip.length - 1 && socket.writable) socket.write(drip[sent++]!);
      }, 50);
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ received, ms: performance.now() - started });
    });
  });
}

function expectTimedOut(outcome: Outcome, bound: number) {
  expect(outcome.ms).toBeGreaterThanOrEqual(bound - 50);
  expect(outcome.ms).toBeLessThan(WITHIN_MS);
  // A 408 with the sentence (or nothing, had the socket closed first): never a route's answer.
  if (outcome.received === '') return;
  const [head, body] = outcome.received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(head).toContain('Content-Type: text/plain; charset=utf-8');
  expect(body).toBe(
    `The request did not arrive in time: headers are allowed ${HEADERS_MS} ms and the whole request ${REQUEST_MS} ms.`,
  );
}

test('a body dribbled after the headers is cut at the request bound', async () => {
  const body = JSON.stringify({
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    x: 'y'.repeat(200),
  });
  const head =
    `POST /v1/getQueue HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `x-api-token: ${key}\r\nContent-Length: ${body.length}\r\n\r\n`;
  expectTimedOut(await dribble(head, body), REQUEST_MS);
});

test('headers dribbled a byte at a time are cut at the headers bound', async () => {
  const headers = 'X-Slow: ' + 'z'.repeat(400) + '\r\n\r\n';
  expectTimedOut(await dribble('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', headers), HEADERS_MS);
});

test('a prompt client on the same server is answered', async () => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(res.status).toBe(200);
});
