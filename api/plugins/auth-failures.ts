/**
 * Requests with a wrong API key, counted per client address. Such a request has no organisation to
 * be counted against (the rate limit keys on the organisation after authentication), yet each costs a
 * key lookup on the small key pool (api/pools.ts) that every request needs: one address guessing keys
 * as fast as it can would make everyone's authentication wait. Past `max` failures in a window, that
 * address's requests are refused before any lookup (429, Retry-After) until the window ends; other
 * addresses are not affected.
 *
 * A wrong key never locks out a valid one (issue 24): a key that authenticated on this process in the
 * last VOUCHED_MS is "vouched for" and is always looked up, whatever its address has sent, so a
 * tenant sharing an address with a guesser (behind a proxy without RAILYARD_TRUST_PROXY, or one NAT)
 * keeps working. The lookup still runs for a vouched key, so a revoked key fails at once; only its
 * SHA-256 is remembered, never the key. What stays refused at an address over its budget is a key this
 * process has not seen succeed, which is what a guesser sends.
 *
 * Invariants: only failures count, so a CI fleet with valid keys behind one address is never limited
 * by this. Addresses are the client's real ones (request.ip, RAILYARD_TRUST_PROXY behind a proxy).
 * Memory is bounded: at most MAX_ADDRESSES addresses and MAX_VOUCHED keys are remembered; past that,
 * finished windows (expired vouchers) are dropped first, and if none has finished the table starts
 * over (the address limit then fails open for a moment; the vouchers are earned again by the next
 * success) rather than growing without bound.
 */
import { createHash } from 'node:crypto';
import { LimitExceeded, seconds, windowText } from './limit-exceeded';

export interface AuthFailureLimiter {
  /** The refusal for an address over its budget, or null. */
  check(address: string): LimitExceeded | null;
  record(address: string): void;
  /** Remembers that `key` authenticated, so failures at its address never refuse it. */
  vouch(key: string): void;
  /** True when `key` authenticated on this process recently. */
  vouched(key: string): boolean;
}

const MAX_ADDRESSES = 10_000;
const MAX_VOUCHED = 10_000;
/** How long a success vouches for a key; a CI fleet uses its key far more often than this. */
export const VOUCHED_MS = 60 * 60_000;

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest('base64');

interface Window {
  start: number;
  failures: number;
}

export function createAuthFailureLimiter(opts: {
  max: number;
  windowMs: number;
  now?: () => number;
}): AuthFailureLimiter {
  const now = opts.now ?? Date.now;
  const windows = new Map<string, Window>();
  /** SHA-256 of the key → when its voucher ends. */
  const vouchers = new Map<string, number>();
  const open = (w: Window | undefined, at: number): w is Window =>
    w !== undefined && at - w.start < opts.windowMs;

  return {
    check(address) {
      const at = now();
      const w = windows.get(address);
      if (!open(w, at) || w.failures < opts.max) return null;
      const after = Math.max(1, Math.ceil((w.start + opts.windowMs - at) / 1000));
      return new LimitExceeded(
        `Address ${address} sent more than ${opts.max} requests with an invalid API key in ${windowText(opts.windowMs)}; retry after ${seconds(after)}.`,
        after,
      );
    },
    record(address) {
      const at = now();
      const w = windows.get(address);
      if (open(w, at)) {
        w.failures++;
        return;
      }
      if (windows.size >= MAX_ADDRESSES) {
        for (const [key, value] of windows) if (!open(value, at)) windows.delete(key);
        if (windows.size >= MAX_ADDRESSES) windows.clear();
      }
      windows.set(address, { start: at, failures: 1 });
    },
    vouch(key) {
      const at = now();
      if (vouchers.size >= MAX_VOUCHED) {
        for (const [hash, until] of vouchers) if (until <= at) vouchers.delete(hash);
        if (vouchers.size >= MAX_VOUCHED) vouchers.clear();
      }
      vouchers.set(digest(key), at + VOUCHED_MS);
    },
    vouched(key) {
      const until = vouchers.get(digest(key));
      return until !== undefined && until > now();
    },
  };
}
