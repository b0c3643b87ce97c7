/**
 * fakehub's rate-based secondary limit, as GitHub documents it for content-creating requests: at most
 * `writes` of them (REST POST, PATCH, PUT and DELETE) per installation within any `windowMs`. A write
 * past that is refused with 403 and a `retry-after` of the seconds until the window has room, and is
 * counted (`refused`). Off until a test sets it (`hub().knobs.secondaryLimitRate`).
 *
 * Invariant: only accepted writes enter the window, so a client that waits out `retry-after` gets in.
 */
export interface WriteRateLimit {
  writes: number;
  windowMs: number;
}

export interface WriteRateLimiter {
  set(limit: WriteRateLimit | null): void;
  /** Null when the write may go; else the seconds to wait. */
  admit(installation: string, method: string, now?: number): number | null;
  /** Writes refused so far, and the most accepted within any window. */
  stats(): { refused: number; peak: number; accepted: number };
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export function createWriteRateLimiter(): WriteRateLimiter {
  let limit: WriteRateLimit | null = null;
  const accepted = new Map<string, number[]>();
  let refused = 0;
  let peak = 0;
  let total = 0;
  return {
    set(next) {
      limit = next;
      accepted.clear();
      refused = peak = total = 0;
    },
    admit(installation, method, now = Date.now()) {
      if (!limit || !WRITES.has(method.toUpperCase())) return null;
      const times = (accepted.get(installation) ?? []).filter((t) => t > now - limit!.windowMs);
      accepted.set(installation, times);
      if (times.length >= limit.writes) {
        refused += 1;
        return Math.max(1, Math.ceil((times[0]! + limit.windowMs - now) / 1000));
      }
      times.push(now);
      total += 1;
      peak = Math.max(peak, times.length);
      return null;
    },
    stats: () => ({ refused, peak, accepted: total }),
  };
}
