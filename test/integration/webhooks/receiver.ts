/**
 * A real local HTTP receiver for webhook tests: records every request (headers and raw body) per path
 * and answers with what the path's script says: a status, or a promise the test settles (slow).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What the receiver answered (200 for a held request, once released). */
  status: number;
}

/** Per path: the status of each successive request (the last one repeats), or a wait before 200. */
export type Script = { statuses: number[] } | { hold: Promise<void> };

export interface Receiver {
  url(path: string): string;
  script(path: string, script: Script): void;
  received(path?: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const scripts = new Map<string, Script>();
  const log: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      const seen = log.filter((r) => r.path === path).length;
      const script = scripts.get(path) ?? { statuses: [200] };
      const status =
        'hold' in script ? 200 : (script.statuses[Math.min(seen, script.statuses.length - 1)] ?? 200);
      log.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), status });
      if ('hold' in script) {
        void script.hold.then(() => res.writeHead(200).end('ok'));
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    script: (path, script) => scripts.set(path, script),
    received: (path) => log.filter((r) => path === undefined || r.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
