/**
 * Announcing an executor to the API at start (issue 24, issue 27): the API may be starting too (npm
 * start, compose, a load balancer with no API behind it yet), so a failed announce is asked again,
 * with backoff from 0.5 s to 5 s, until the API answers or refuses the credential.
 *
 * Rules:
 * - ExecutorRefused (401) stops at once: asking again cannot help.
 * - Any other failure is retried for `giveUpAfter` attempts (about five minutes), then thrown with the
 *   attempts, the time spent and the last reason: the process stops saying why, never silently.
 * - The first failure is logged, then at most one every `logEveryMs`, each with its reason and how
 *   long the executor has been asking: an operator sees why it waits without a line every backoff.
 */
import { ExecutorRefused } from './api-client';

export interface AnnounceOptions {
  announce: () => Promise<string>;
  /** The API's address as the executor reaches it, for the log. */
  apiUrl: string;
  log: (message: string) => void;
  /** Attempts before giving up (default 60, about five minutes with the backoff). */
  giveUpAfter?: number;
  /** The least time between two logged failures (default 30 s). */
  logEveryMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The executor's name, as the API answered the announce. */
export async function announceUntilAnswered(opts: AnnounceOptions): Promise<string> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = opts.now ?? Date.now;
  const giveUpAfter = opts.giveUpAfter ?? 60;
  const logEveryMs = opts.logEveryMs ?? 30_000;
  const started = now();
  let loggedAt: number | null = null;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const name = await opts.announce();
      if (loggedAt !== null) opts.log(`announced to ${opts.apiUrl} after ${attempt} attempts`);
      return name;
    } catch (err) {
      if (err instanceof ExecutorRefused) throw err;
      const seconds = Math.round((now() - started) / 1000);
      if (attempt >= giveUpAfter)
        throw new Error(
          `the API at ${opts.apiUrl} did not answer the announce in ${attempt} attempts over ${seconds} s; the last: ${reasonOf(err)}`,
        );
      if (loggedAt === null || now() - loggedAt >= logEveryMs) {
        loggedAt = now();
        opts.log(
          `not announced to ${opts.apiUrl} yet (attempt ${attempt}, ${seconds} s), asking again: ${reasonOf(err)}`,
        );
      }
      await sleep(Math.min(500 * 2 ** (attempt - 1), 5_000));
    }
  }
}
