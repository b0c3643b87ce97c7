/**
 * X-Hub-Signature-256 of GitHub webhook deliveries: `sha256=` + hex HMAC-SHA256 of the raw body under
 * the App's webhook secret.
 *
 * Rules:
 * - Verified on the exact bytes received, never on re-serialised JSON.
 * - Compared in constant time (timingSafeEqual over equal-length digests); a header of the wrong shape
 *   is simply not valid.
 * - node:crypto rather than @octokit/webhooks' `verify`: the same computation, synchronous, and no
 *   ESM-only package to load through `await import()` under module node16 and jest.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

export function signatureOf(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function isValidSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  const given = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!given) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(given[1]!, 'hex'));
}
