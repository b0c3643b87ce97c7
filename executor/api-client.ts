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
 * - Every request and the read of its answer have a deadline (`requestTimeoutMs`; a claim the API's
 *   wait more; a heartbeat at most 10 s and an announce 5 s, small requests the API answers at once)
 *   kept by an ordinary timer, cleared when the exchange ends. The timer holds the process (issue 27):
 *   the first fetch of a process whose connection is closed unanswered (a load balancer with no API
 *   behind it yet) stays unsettled on Node 20.20 until its deadline, and with only AbortSignal.timeout's
 *   unref'd timer pending the executor exited with code 0 mid-announce. A request that fails or runs out of time throws ApiUnanswered, naming the request
 *   and the reason.
 */
import {
  CLAIM_WAIT_MS,
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

/** The API did not answer a request: unreachable, the connection lost, or no answer in time. */
export class ApiUnanswered extends Error {
  override readonly name = 'ApiUnanswered';
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
  /**
   * Deadline of one request (default 30 s; a heartbeat at most 10 s, an announce 5 s); a claim gets the
   * API's wait (CLAIM_WAIT_MS) on top.
   */
  requestTimeoutMs?: number;
}

const bodyText = async (res: Response) => (await res.text().catch(() => '')).trim().slice(0, 500);

/** "fetch failed (other side closed)": fetch's own message says nothing without its cause. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && cause !== err.message ? `${err.message} (${cause})` : err.message;
}

export function createExecutorApi(opts: ExecutorApiOptions): ExecutorApi {
  const url = (path: string) => new URL(`${EXECUTOR_API_PREFIX}/${path}`, opts.apiUrl);
  const origin = new URL(opts.apiUrl).origin;
  const auth = { authorization: `Bearer ${opts.credential}` };
  const requestMs = opts.requestTimeoutMs ?? 30_000;
  // A heartbeat held for long misses the next beats (and the run's heartbeat timeout, 20 s); an
  // announce held for long delays the start of an executor whose API has just come up.
  const heartbeatMs = Math.min(requestMs, 10_000);
  const announceMs = Math.min(requestMs, 5_000);

  /**
   * One request and the read of its answer (`read`), within `deadlineMs`. Errors of `read` (the API's
   * refusal, a bad answer) pass unchanged; a network failure or the deadline becomes ApiUnanswered.
   * `signal` (the caller's cancel) aborts it with fetch's AbortError.
   */
  async function exchange<T>(
    what: string,
    path: string,
    init: Omit<RequestInit, 'signal'> & { deadlineMs?: number; signal?: AbortSignal },
    read: (res: Response) => Promise<T>,
  ): Promise<T> {
    const { deadlineMs = requestMs, signal, ...request } = init;
    const deadline = new AbortController();
    // Not unref'd: this timer is what keeps the process alive while the request is out.
    const timer = setTimeout(
      () => deadline.abort(new ApiUnanswered(`${what}: ${origin} gave no answer within ${deadlineMs} ms`)),
      deadlineMs,
    );
    const unanswered = (err: unknown) =>
      deadline.signal.aborted
        ? (deadline.signal.reason as ApiUnanswered)
        : signal?.aborted
          ? err
          : new ApiUnanswered(`${what} at ${origin} failed: ${reasonOf(err)}`, { cause: err });
    try {
      let res: Response;
      try {
        res = await fetch(url(path), {
          ...request,
          signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
        });
      } catch (err) {
        throw unanswered(err);
      }
      try {
        return await read(res);
      } catch (err) {
        // The body cut off (the connection lost, the deadline) is the network's; anything else is read's.
        if (deadline.signal.aborted || err instanceof TypeError) throw unanswered(err);
        throw err;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async function deliver(
    path: string,
    init: Omit<RequestInit, 'signal'>,
    signal?: AbortSignal,
  ): Promise<Delivery> {
    const until = Date.now() + (opts.reportRetryMs ?? 10 * 60_000);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const delivery = await exchange(
          'delivering a report',
          path,
          { ...init, ...(signal ? { signal } : {}) },
          async (res): Promise<Delivery | null> => {
            if (res.status === 204 || res.ok) {
              await res.body?.cancel();
              return { kind: 'accepted' };
            }
            if (res.status === 401 || res.status === 404 || res.status === 409 || res.status === 400)
              return { kind: 'refused', status: res.status, message: await bodyText(res) };
            await res.body?.cancel();
            return null;
          },
        );
        if (delivery) return delivery;
      } catch {
        // Unreachable or timed out: tried again below.
      }
      if (signal?.aborted || Date.now() > until)
        return { kind: 'refused', status: 0, message: 'the API did not take it in time' };
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 10_000)));
    }
  }

  return {
    announce(body) {
      return exchange(
        'announcing this executor',
        'announce',
        {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          deadlineMs: announceMs,
        },
        async (res) => {
          if (res.status === 401) throw new ExecutorRefused(await bodyText(res));
          if (!res.ok) throw new Error(`the API answered HTTP ${res.status}: ${await bodyText(res)}`);
          return ((await res.json()) as { name: string }).name;
        },
      );
    },

    claim(signal) {
      return exchange(
        'claiming a job',
        'jobs/claim',
        {
          method: 'POST',
          headers: auth,
          deadlineMs: CLAIM_WAIT_MS + requestMs,
          ...(signal ? { signal } : {}),
        },
        async (res) => {
          if (res.status === 204) return null;
          if (res.status === 401) throw new ExecutorRefused(await bodyText(res));
          if (!res.ok) throw new Error(`claiming a job answered HTTP ${res.status}: ${await bodyText(res)}`);
          return ClaimedJobSchema.parse(await res.json());
        },
      );
    },

    heartbeat(jobId) {
      return exchange(
        `the heartbeat of job ${jobId}`,
        `jobs/${jobId}/heartbeat`,
        { method: 'POST', headers: auth, deadlineMs: heartbeatMs },
        async (res): Promise<HeartbeatAnswer> => {
          if (res.status === 404 || res.status === 401) {
            await res.body?.cancel();
            return { action: 'stop', reason: 'gone' };
          }
          if (!res.ok) throw new Error(`a heartbeat answered HTTP ${res.status}: ${await bodyText(res)}`);
          return HeartbeatAnswerSchema.parse(await res.json());
        },
      );
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
