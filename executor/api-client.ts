/**
 * The executor's client of the API (issue 24, ADR 0014; paths and shapes in protocol.ts). Every request
 * carries the executor credential in the Authorization header; nothing else of the control plane is
 * reachable or needed.
 *
 * Rules:
 * - 401 means the credential is wrong or revoked: `announce` throws ExecutorRefused (the process stops
 *   with the API's sentence); mid-run the job is dropped, as it is no longer this executor's.
 * - A heartbeat the API does not answer (restarting, unreachable) throws: the caller keeps the run and
 *   tries again at its next beat. 404 means the job is not this executor's any more: stop.
 * - A report or failure is sent until the API takes it (204) or refuses it (404: not held, 409: the
 *   attempt is gone, 401), with backoff from 0.5 s to 10 s, for at most `reportRetryMs` or until
 *   `signal` aborts: an API that restarts mid-run gets the report once it is back.
 */
import {
  ClaimedJobSchema,
  EXECUTOR_API_PREFIX,
  HeartbeatAnswerSchema,
  type ClaimedJob,
  type ExecutorAnnouncementBody,
  type HeartbeatAnswer,
  type JobFailure,
} from './protocol';

export class ExecutorRefused extends Error {
  override readonly name = 'ExecutorRefused';
}

export type Delivery = { kind: 'accepted' } | { kind: 'refused'; status: number; message: string };

export interface ExecutorApi {
  announce(body: ExecutorAnnouncementBody): Promise<string>;
  /** A job, or null when none came within the API's wait; throws when the API is unreachable. */
  claim(signal?: AbortSignal): Promise<ClaimedJob | null>;
  heartbeat(jobId: string): Promise<HeartbeatAnswer>;
  report(jobId: string, packed: Uint8Array, signal?: AbortSignal): Promise<Delivery>;
  fail(jobId: string, failure: JobFailure, signal?: AbortSignal): Promise<Delivery>;
}

export interface ExecutorApiOptions {
  apiUrl: string;
  credential: string;
  /** How long a report is retried while the API does not answer (default 10 minutes). */
  reportRetryMs?: number;
  /** Deadline of one request other than the claim (default 30 s). */
  requestTimeoutMs?: number;
}

const bodyText = async (res: Response) => (await res.text().catch(() => '')).trim().slice(0, 500);

export function createExecutorApi(opts: ExecutorApiOptions): ExecutorApi {
  const url = (path: string) => new URL(`${EXECUTOR_API_PREFIX}/${path}`, opts.apiUrl);
  const auth = { authorization: `Bearer ${opts.credential}` };
  const timeout = () => AbortSignal.timeout(opts.requestTimeoutMs ?? 30_000);

  async function deliver(path: string, init: RequestInit, signal?: AbortSignal): Promise<Delivery> {
    const until = Date.now() + (opts.reportRetryMs ?? 10 * 60_000);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const res = await fetch(url(path), {
          ...init,
          signal: signal ? AbortSignal.any([signal, timeout()]) : timeout(),
        });
        if (res.status === 204 || res.ok) {
          await res.body?.cancel();
          return { kind: 'accepted' };
        }
        if (res.status === 401 || res.status === 404 || res.status === 409 || res.status === 400)
          return { kind: 'refused', status: res.status, message: await bodyText(res) };
        await res.body?.cancel();
      } catch {
        // Unreachable or timed out: tried again below.
      }
      if (signal?.aborted || Date.now() > until)
        return { kind: 'refused', status: 0, message: 'the API did not take it in time' };
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 10_000)));
    }
  }

  return {
    async announce(body) {
      const res = await fetch(url('announce'), {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: timeout(),
      });
      if (res.status === 401) throw new ExecutorRefused(await bodyText(res));
      if (!res.ok) throw new Error(`the API answered HTTP ${res.status}: ${await bodyText(res)}`);
      return ((await res.json()) as { name: string }).name;
    },

    async claim(signal) {
      const res = await fetch(url('jobs/claim'), {
        method: 'POST',
        headers: auth,
        ...(signal ? { signal } : {}),
      });
      if (res.status === 204) return null;
      if (res.status === 401) throw new ExecutorRefused(await bodyText(res));
      if (!res.ok) throw new Error(`claiming a job answered HTTP ${res.status}: ${await bodyText(res)}`);
      return ClaimedJobSchema.parse(await res.json());
    },

    async heartbeat(jobId) {
      const res = await fetch(url(`jobs/${jobId}/heartbeat`), {
        method: 'POST',
        headers: auth,
        signal: timeout(),
      });
      if (res.status === 404 || res.status === 401) {
        await res.body?.cancel();
        return { action: 'stop', reason: 'gone' };
      }
      if (!res.ok) throw new Error(`a heartbeat answered HTTP ${res.status}: ${await bodyText(res)}`);
      return HeartbeatAnswerSchema.parse(await res.json());
    },

    report(jobId, packed, signal) {
      return deliver(
        `jobs/${jobId}/report`,
        { method: 'PUT', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: packed },
        signal,
      );
    },

    fail(jobId, failure, signal) {
      return deliver(
        `jobs/${jobId}/failure`,
        {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(failure),
        },
        signal,
      );
    },
  };
}
