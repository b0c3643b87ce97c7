/**
 * The chaos driver's view of the API: plain HTTP with a per-request timeout, where a refused
 * connection or a timeout is an outcome (`status: 0`), never an exception, because the API is killed on
 * purpose. `submitUntilAccepted` behaves like a careful CI job: it retries until the API says yes or
 * no, and before resubmitting after an unclear failure it asks whether the first attempt went through.
 */
import type { SubmittedPullRequest } from '../../api/schemas/merge-queue';

export interface Answer {
  /** 0 when no HTTP answer came (connection refused or reset, timeout). */
  status: number;
  body: string;
}

export interface Api {
  post(route: string, body: unknown, timeoutMs?: number): Promise<Answer>;
  pullRequest(pr: number): Promise<SubmittedPullRequest | null | 'unknown'>;
  submitUntilAccepted(pr: number, deadline: number): Promise<'accepted' | 'refused' | 'gave_up'>;
}

export interface QueueRef {
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createApi(baseUrl: string, key: string, queue: QueueRef): Api {
  async function post(route: string, body: unknown, timeoutMs = 30_000): Promise<Answer> {
    try {
      const res = await fetch(`${baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, body: await res.text() };
    } catch (err) {
      return { status: 0, body: err instanceof Error ? err.message : String(err) };
    }
  }

  async function pullRequest(pr: number) {
    const res = await post('/v1/getSubmittedPullRequest', { ...queue, pr: { number: pr } }, 10_000);
    if (res.status === 200) return JSON.parse(res.body) as SubmittedPullRequest;
    return res.status === 404 ? null : 'unknown';
  }

  return {
    post,
    pullRequest,
    async submitUntilAccepted(pr, deadline) {
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        if (attempt > 0) {
          await sleep(Math.min(2_000, 200 * 2 ** attempt) * (0.5 + Math.random()));
          // The earlier attempt may have gone through before its answer was lost.
          const seen = await pullRequest(pr);
          if (seen !== null && seen !== 'unknown') return 'accepted';
          if (seen === 'unknown') continue;
        }
        const res = await post('/v1/submitPullRequest', { ...queue, pr: { number: pr } });
        if (res.status === 200) return 'accepted';
        if (res.status >= 400 && res.status < 500) return 'refused';
      }
      return 'gave_up';
    },
  };
}
