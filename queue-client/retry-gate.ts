/**
 * A gRPC retry policy that lets a connection close cleanly. Temporal's retry interceptor schedules a
 * retry with a plain timer; if the connection is closed before the timer fires, the retry calls into a
 * shut-down channel and throws "Channel has been shut down" from the timer, an uncaught exception in
 * the process (seen in test runs that close a deployment while a call was backing off).
 *
 * Rules: once `close` is called no new retry is decided; `close` waits until every retry already
 * scheduled is due (each delay is bounded by the policy's maximum interval), then closes.
 */
import { type Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

export interface RetryGate {
  interceptor: ReturnType<typeof makeGrpcRetryInterceptor>;
  /** Stops deciding retries, waits for the scheduled ones, then closes the connection. */
  close(connection: Pick<Connection, 'close'>): Promise<void>;
}

/** `retryable(attempt, status)` narrows Temporal's default decision (the default when absent). */
export function createRetryGate(
  retryable?: Parameters<typeof makeGrpcRetryInterceptor>[0]['retryableDecider'],
): RetryGate {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  let retriesDueBy = 0;
  return {
    interceptor: makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) =>
        !closing && (retryable ?? defaults.retryableDecider)(attempt, status),
      delayFunction: (attempt, status) => {
        const ms = defaults.delayFunction(attempt, status);
        retriesDueBy = Math.max(retriesDueBy, Date.now() + ms);
        return ms;
      },
    }),
    async close(connection) {
      closing = true;
      const wait = retriesDueBy - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait + 50));
      await connection.close();
    },
  };
}
