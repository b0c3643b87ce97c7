/**
 * A request refused because its organisation (or, without a key, its address) is over one of the
 * tenant limits: 429 with a `Retry-After` header in whole seconds and one plain sentence. The rate
 * limit (rate-limit.ts) and the in-flight caps (in-flight.ts) throw it; the error handler is the only
 * place that turns it into a reply, so every 429 looks the same.
 */
export class LimitExceeded extends Error {
  override readonly name = 'LimitExceeded';
  readonly statusCode = 429;
  constructor(
    message: string,
    /** At least 1: a client that honours it must not retry in a tight loop. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export const isLimitExceeded = (err: unknown): err is LimitExceeded => err instanceof LimitExceeded;

export const seconds = (n: number): string => (n === 1 ? '1 second' : `${n} seconds`);

/** "one second", "60 seconds", "1500 ms": the length of a rate window in a sentence. */
export const windowText = (ms: number): string =>
  ms === 1000 ? 'one second' : ms % 1000 === 0 ? seconds(ms / 1000) : `${ms} ms`;
