/**
 * One webhook HTTP attempt: POST the body with the given headers, within a deadline, and report what
 * happened as data (never by throwing), so the caller records every attempt the same way.
 *
 * Rules: redirects are not followed (a 3xx is an answer like any other non-2xx; following them would
 * let a receiver bounce us to an address the URL policy refuses); only the first KiB of the answer is
 * kept; the connection's address is checked by `guardedLookup` (url-policy.ts) when the socket
 * resolves the host, so the address judged is the address connected to (no second resolution).
 */
import http from 'node:http';
import https from 'node:https';
import { checkWebhookUrl, guardedLookup, type Lookup, PrivateAddressError } from './url-policy';

export type PostResult =
  | { kind: 'answered'; statusCode: number; body: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'unreachable'; error: string };

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  userAgent: string;
  /** The resolver behind the connect-time check; the system's DNS unless a test names another. */
  lookup?: Lookup;
}

const KEEP_BYTES = 1024;

export function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: PostOptions,
): Promise<PostResult> {
  const verdict = checkWebhookUrl(rawUrl, opts.allowPrivate);
  if (!verdict.ok) return Promise.resolve({ kind: 'refused', reason: `The URL ${verdict.reason}.` });
  const { url } = verdict;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': opts.userAgent,
        },
        lookup: guardedLookup(opts.allowPrivate, opts.lookup),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < KEEP_BYTES) chunks.push(chunk.subarray(0, KEEP_BYTES - kept));
          kept += chunk.length;
        });
        const done = () =>
          finish({
            kind: 'answered',
            statusCode: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ kind: 'unreachable', error: `No answer within ${opts.timeoutMs} ms.` });
      request.destroy();
    }, opts.timeoutMs);
    request.on('error', (err) => {
      finish(
        err instanceof PrivateAddressError
          ? { kind: 'refused', reason: `The URL's host ${err.message}, which this server does not allow.` }
          : { kind: 'unreachable', error: err.message || err.name },
      );
    });
    request.end(body);
  });
}
