/**
 * Answers to what Node's HTTP parser refuses before any route runs: a request that did not arrive
 * within the headers or request bound (408, server-timeouts.ts), headers too large (431), bytes that
 * are not HTTP (400). Fastify's default writes JSON; like every other error of this API the body here
 * is one plain-text sentence. The connection is closed after it either way.
 *
 * Invariant: nothing is written on a socket whose response has already started (a handler may have
 * answered early while the body was still arriving); such a socket is only closed.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** The bounds a 408 names (server-timeouts.ts passes its own; declared here so neither imports the other). */
export interface RequestBounds {
  readonly headersMs: number;
  readonly requestMs: number;
}

function answer(code: string | undefined, t: RequestBounds): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        `The request did not arrive in time: headers are allowed ${t.headersMs} ms and the whole request ${t.requestMs} ms.`,
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request headers are larger than the server accepts.'];
    default:
      return [400, 'The request is not valid HTTP/1.1.'];
  }
}

const responseStarted = (socket: Socket): boolean =>
  (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

export function clientErrorHandler(t: RequestBounds) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    // A reset connection is gone already; there is nobody to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable && !responseStarted(socket)) {
      const [status, sentence] = answer(err.code, t);
      const body = Buffer.from(sentence, 'utf8');
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      socket.write(body);
    }
    socket.destroy(err);
  };
}
