/**
 * One readiness probe shared by every caller: while a probe runs, later callers wait for the same
 * result instead of starting their own (single flight), and a finished result is reused for `ttlMs`.
 * /readyz needs no key, so without this each request (50 at once, or one per millisecond) would run
 * its own PostgreSQL query, Temporal call or ping workflow.
 *
 * Invariants: `run` never rejects (it reports a failure as its result string), at most one `run` is
 * in flight at any time, and a result, failures included, is reused until `ttlMs` after it arrived.
 */
export interface SharedProbeOptions {
  /** How long a finished result is reused; 0 only joins callers that arrive while it runs. */
  readonly ttlMs: number;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

export function sharedProbe(run: () => Promise<string>, opts: SharedProbeOptions): () => Promise<string> {
  let last: { at: number; result: string } | undefined;
  let running: Promise<string> | undefined;
  return () => {
    if (last !== undefined && opts.now() - last.at < opts.ttlMs) return Promise.resolve(last.result);
    running ??= run()
      .then((result) => {
        last = { at: opts.now(), result };
        return result;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}
