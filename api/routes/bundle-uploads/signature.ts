/**
 * The capability in a bundle upload URL: `?expires=<unix seconds>&signature=<HMAC-SHA256>` over the
 * upload id and the expiry. Whoever holds the URL may PUT one bundle for that upload until it expires;
 * nothing else. The key is derived from the deployment's secret (RAILYARD_PAGE_TOKEN_SECRET) with a
 * label of its own, so a page token and an upload signature can never stand for each other.
 *
 * Invariants: the signature is compared in constant time (after a length check, which reveals only
 * the fixed length); neither the key nor a signature is ever put in a message or a log line.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface UploadUrlSigner {
  sign(uploadId: string, expiresAtSeconds: number): string;
  /** True when `signature` is the one for this id and expiry (the expiry itself is checked by the caller). */
  verify(uploadId: string, expiresAtSeconds: number, signature: string): boolean;
}

const LABEL = 'railyard bundle upload url v1';
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export function createUploadUrlSigner(secret: string): UploadUrlSigner {
  const key = createHmac('sha256', secret).update(LABEL).digest();
  const mac = (uploadId: string, expires: number) =>
    createHmac('sha256', key).update(`${uploadId}\n${expires}`).digest();
  return {
    sign: (uploadId, expires) => mac(uploadId, expires).toString('base64url'),
    verify(uploadId, expires, signature) {
      if (!SIGNATURE.test(signature)) return false;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(uploadId, expires);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
