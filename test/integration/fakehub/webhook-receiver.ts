/**
 * A webhook target for fakehub's tests: a plain HTTP server on 127.0.0.1 that keeps every request's
 * exact bytes and headers and answers with the status the test chooses (200 by default).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  event: string;
  guid: string;
  payload: Record<string, unknown> & { action?: string };
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** The status the next requests are answered with. */
  answerWith(status: number): void;
  /** Forgets what was received. */
  clear(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let status = 200;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        headers: request.headers,
        raw,
        event: String(request.headers['x-github-event']),
        guid: String(request.headers['x-github-delivery']),
        payload: JSON.parse(raw.toString('utf8')) as Received['payload'],
      });
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/github/webhooks`,
    received,
    answerWith: (next) => (status = next),
    clear: () => received.splice(0),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
