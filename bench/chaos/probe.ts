/**
 * Whether railyard answers, measured from outside. Every 500 ms a probe sends getQueue through the API,
 * which needs every part at once: the API process, PostgreSQL (the key), Temporal, and a worker (the
 * query runs on one). Probes overlap, so one stuck on a dead worker does not delay the next.
 *
 * The time to recover from a fault is the time from its injection to the first successful answer to a
 * probe sent after it. The fault plan waits for that answer before the next fault, so each recovery is
 * measured on its own.
 */
import type { Api } from './http';

export interface ProbeSample {
  sentAt: number;
  answeredAt: number;
  ok: boolean;
}

export interface Probe {
  /** The probe's interval (cleared by `stop`, or by the caller when a run fails). */
  timer: NodeJS.Timeout;
  /** Resolves once a probe sent at or after `at` was answered, or after `capMs`. */
  answering(at: number, capMs: number): Promise<void>;
  stop(): Promise<ProbeSample[]>;
}

export function startProbe(api: Api, queue: object, intervalMs = 500): Probe {
  const samples: ProbeSample[] = [];
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const sentAt = Date.now();
    const p = api.post('/v1/getQueue', queue, 15_000).then((res) => {
      samples.push({ sentAt, answeredAt: Date.now(), ok: res.status === 200 });
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }, intervalMs);
  return {
    timer,
    async answering(at, capMs) {
      const until = Date.now() + capMs;
      while (recoveryMs(samples, at) === null && Date.now() < until)
        await new Promise((r) => setTimeout(r, intervalMs));
    },
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return samples.sort((a, b) => a.sentAt - b.sentAt);
    },
  };
}

/** Milliseconds from `at` until a probe sent at or after it was answered; null if none was. */
export function recoveryMs(samples: ProbeSample[], at: number): number | null {
  let best: number | null = null;
  for (const s of samples)
    if (s.ok && s.sentAt >= at && (best === null || s.answeredAt < best)) best = s.answeredAt;
  return best === null ? null : best - at;
}

/** Longest stretch of time in which no probe succeeded. */
export function longestOutageMs(samples: ProbeSample[]): number {
  const oks = samples
    .filter((s) => s.ok)
    .map((s) => s.answeredAt)
    .sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < oks.length; i++) longest = Math.max(longest, oks[i]! - oks[i - 1]!);
  return longest;
}
