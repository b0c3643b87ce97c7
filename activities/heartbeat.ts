/**
 * Heartbeats while an activity's work runs, so a worker that dies mid-call is noticed within the
 * activity's heartbeat timeout (seconds) rather than its start-to-close timeout, and the call is retried
 * on a live worker. Work that ends before the first beat sends none. Outside an activity (tests calling
 * an activity function directly) and in a local activity (which has no heartbeat: its workflow task's
 * timeout notices a dead worker) the work just runs.
 */
import { Context } from '@temporalio/activity';

export async function whileHeartbeating<T>(
  work: () => Promise<T>,
  everyMs: number,
  /** Sent with every beat: what an attempt after this one's worker died may skip. */
  details?: unknown,
): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return work();
  }
  if (ctx.info.isLocal) return work();
  const beat = () => (details === undefined ? ctx.heartbeat() : ctx.heartbeat(details));
  if (details !== undefined) beat();
  const timer = setInterval(beat, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** `fn` heartbeating every `everyMs` while each call runs. */
export const heartbeating =
  <A extends unknown[], R>(fn: (...args: A) => Promise<R>, everyMs: number) =>
  (...args: A): Promise<R> =>
    whileHeartbeating(() => fn(...args), everyMs);
