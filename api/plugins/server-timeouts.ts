/**
 * How long a client may take to send a request, so a slow or stalled sender cannot hold a connection
 * (and, for an upload, an in-flight slot) forever. Node's HTTP server enforces them, not a route:
 *
 * - headers: the request line and headers must have arrived within `headersMs` of the first byte;
 * - request: the whole request, body included, within `requestMs` (a body dribbled a byte at a time
 *   is cut there; the client gets 408 when nothing was answered yet, and the connection is closed);
 * - idle: a connection on which nothing moves for `idleMs` is closed (an open socket that never
 *   sends a byte, a client that stopped reading).
 *
 * Past the headers or request bound the client gets 408 with a sentence (client-errors.ts).
 *
 * Invariants: headersMs <= requestMs (Node refuses otherwise; the smaller wins here). Node checks
 * headers and request deadlines on a timer, not per byte: the timer runs every quarter of the smaller
 * bound, at most once a second, so a deadline is overrun by at most that much.
 */
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { clientErrorHandler } from './client-errors';

export interface ServerTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly idleMs: number;
}

/** The defaults of RAILYARD_API_HEADERS_TIMEOUT_MS, _REQUEST_TIMEOUT_MS and _IDLE_TIMEOUT_MS. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  // 20 MiB (the body limit) in a minute is about 350 KB/s, slower than any CI runner's uplink.
  requestMs: 60_000,
  // Above Fastify's keep-alive timeout (72 s), which closes idle keep-alive connections first; this
  // one catches a connection stuck mid-request or a client that stopped reading the answer.
  idleMs: 120_000,
};

/** The part of Fastify's options (HTTP/1 server) that carries them, and the plain-text 408 past them. */
export interface HttpServerOptions {
  requestTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => void;
}

export function httpServerOptions(t: ServerTimeouts): HttpServerOptions {
  const headersTimeout = Math.min(t.headersMs, t.requestMs);
  return {
    requestTimeout: t.requestMs,
    connectionTimeout: t.idleMs,
    http: {
      headersTimeout,
      requestTimeout: t.requestMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    clientErrorHandler: clientErrorHandler(t),
  };
}
