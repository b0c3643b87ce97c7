/**
 * Requests with a wrong API key, counted per client address. Such a request has no organisation to
 * be counted against (the rate limit keys on the organisation after authentication), yet each costs a
 * key lookup on the small key pool (api/pools.ts) that every request needs: one address guessing keys
 * as fast as it can would make everyone's authentication wait. Past `max` failures in a window, that
 * address's requests are refused before any lookup (429, Retry-After) until the window ends; other
 * addresses are not affected.
 *
 * Invariants: only failures count, so a CI fleet with valid keys behind one address is never limited
 * by this. Memory is bounded: at most MAX_ADDRESSES addresses are remembered; past that, finished
 * windows are dropped first, and if every window is still open the table starts over (this limit then
 * fails open for a moment rather than growing without bound).
 */
import { LimitExceeded, seconds, windowText } from './limit-exceeded';

export interface AuthFailureLimiter {
  /** The refusal for an address over its budget, or null. */
  check(address: string): LimitExceeded | null;
  record(address: string): void;
}

const MAX_ADDRESSES = 10_000;

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
  };
}
