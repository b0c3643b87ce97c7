/**
 * Svix-compatible signing (what Trunk's webhooks use, so any Svix library verifies ours):
 * - the secret is `whsec_` + base64 of random bytes; the HMAC key is those bytes;
 * - the signed content is `${svix-id}.${svix-timestamp}.${raw body}`, HMAC-SHA256, base64;
 * - headers `svix-id` (the delivery id, the same on every retry), `svix-timestamp` (unix seconds of
 *   this attempt, so a retry is signed afresh and passes the receiver's 5-minute skew check) and
 *   `svix-signature` (`v1,<base64>`; space-separated when several secrets are valid).
 * Implemented with node:crypto rather than the svix package, so the tests' verification with the
 * svix library checks this code instead of the library against itself.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

export function svixHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<'svix-id' | 'svix-timestamp' | 'svix-signature', string> {
  return {
    'svix-id': id,
    'svix-timestamp': String(timestampSeconds),
    'svix-signature': signatureOf(secret, id, timestampSeconds, body),
  };
}
