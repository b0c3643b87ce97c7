/**
 * Fixed-window counts by key in this process's memory, for the small budgets that are not requests
 * per second (fork-run-budget.ts). A key's window starts at its first use and lasts `windowMs`; `take`
 * spends one unit if the window has one left.
 *
 * Invariant: memory is bounded. At most `maxKeys` keys are remembered; past that, finished windows are
 * dropped first, and if every window is still open the table starts over (the budget then fails open
 * for a moment rather than growing without bound).
 */
export interface WindowCounts {
  /** Seconds until `key` has a unit again (at least 1), or 0 when it has one now. */
  waitFor(key: string): number;
  /** Spends one unit of `key`'s window; false (nothing spent) when none is left. */
  take(key: string): boolean;
}

interface Window {
  start: number;
  used: number;
}

export function createWindowCounts(opts: {
  /** Units per window; a function is asked at each check (a share that follows the replica count). */
  max: number | (() => number);
  windowMs: number;
  maxKeys?: number;
  now?: () => number;
}): WindowCounts {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 10_000;
  const windows = new Map<string, Window>();
  const open = (w: Window | undefined, at: number): w is Window =>
    w !== undefined && at - w.start < opts.windowMs;
  const waitFor = (key: string, at: number): number => {
    const w = windows.get(key);
    const max = typeof opts.max === 'function' ? opts.max() : opts.max;
    if (!open(w, at) || w.used < max) return 0;
    return Math.max(1, Math.ceil((w.start + opts.windowMs - at) / 1000));
  };
  return {
    waitFor: (key) => waitFor(key, now()),
    take(key) {
      const at = now();
      if (waitFor(key, at) > 0) return false;
      const w = windows.get(key);
      if (open(w, at)) {
        w.used++;
        return true;
      }
      if (windows.size >= maxKeys) {
        for (const [k, v] of windows) if (!open(v, at)) windows.delete(k);
        if (windows.size >= maxKeys) windows.clear();
      }
      windows.set(key, { start: at, used: 1 });
      return true;
    },
  };
}
