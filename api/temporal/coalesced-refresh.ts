/**
 * Coalesced refreshes per key: the read projection's "store the view after a change" (ADR 0016) for a
 * burst of changes to one queue. Without it, 200 concurrent submits asked the queue workflow 200 times
 * and wrote its whole view 200 times, and the pool that answers every other request ran dry (503s).
 *
 * Rule: `refresh(key, run)` resolves after a run for `key` that started after the call, so a caller that
 * changed something and then refreshes reads its own write. At most one run per key is in flight and at
 * most one more waits behind it, shared by every caller that arrived meanwhile: a burst of N changes
 * costs two runs, not N. A run's failure is its callers' (the next run is tried afresh). Keys with
 * nothing in flight hold no memory.
 */
/** `run` does the refresh of `key`; every caller of one key passes an equivalent one. */
export type CoalescedRefresh = (key: string, run: () => Promise<void>) => Promise<void>;

export function createCoalescedRefresh(): CoalescedRefresh {
  const state = new Map<string, { running: Promise<void>; next: Promise<void> | null }>();

  function refresh(key: string, run: () => Promise<void>): Promise<void> {
    const current = state.get(key);
    if (!current) {
      const entry: { running: Promise<void>; next: Promise<void> | null } = {
        running: Promise.resolve(),
        next: null,
      };
      entry.running = run().finally(() => {
        // A waiting run takes over the key (it re-enters below); otherwise the key is idle.
        if (state.get(key) === entry && entry.next === null) state.delete(key);
      });
      state.set(key, entry);
      return entry.running;
    }
    // One run is in flight and may have started before the caller's change: wait for the next.
    current.next ??= current.running
      .catch(() => undefined)
      .then(() => {
        state.delete(key);
        return refresh(key, run);
      });
    return current.next;
  }

  return refresh;
}
