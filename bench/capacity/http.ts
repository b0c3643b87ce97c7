/**
 * The benchmark's HTTP client for the real API: JSON posts and multipart uploads with the organisation's
 * key, each call's latency recorded under its route, so the report gives API p50/p99 per route from
 * what a client saw. A 429 or 503 is retried as a careful CI job would (after its Retry-After, at
 * most 10 times) and counted; any other non-2xx answer throws with the route, status and body: the load
 * is meant to be accepted, and a refusal means the run measured something else.
 */
export interface Client {
  post<T = unknown>(route: string, body: unknown): Promise<T>;
  upload(form: FormData): Promise<unknown>;
  /** Milliseconds of every call so far, by route (each attempt of a retried call). */
  latencies: Map<string, number[]>;
  /** Retried answers by route and status, e.g. `/v1/submitPullRequest 503`, with the last body. */
  retries: Map<string, { count: number; body: string }>;
}

const MAX_RETRIES = 10;

export function createClient(baseUrl: string, key: string): Client {
  const latencies = new Map<string, number[]>();
  const retries = new Map<string, { count: number; body: string }>();
  async function call(route: string, init: RequestInit): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}${route}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'x-api-token': key },
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      const list = latencies.get(route) ?? [];
      list.push(performance.now() - t0);
      latencies.set(route, list);
      if ((res.status === 429 || res.status === 503) && attempt < MAX_RETRIES) {
        const name = `${route} ${res.status}`;
        retries.set(name, { count: (retries.get(name)?.count ?? 0) + 1, body: text.slice(0, 300) });
        const after = Number(res.headers.get('retry-after'));
        await new Promise((r) => setTimeout(r, (Number.isFinite(after) && after > 0 ? after : 1) * 1000));
        continue;
      }
      if (res.status < 200 || res.status > 299) throw new Error(`${route} answered ${res.status}: ${text}`);
      return text === '' ? null : JSON.parse(text);
    }
  }
  return {
    latencies,
    retries,
    post: async <T>(route: string, body: unknown) =>
      (await call(route, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })) as T,
    upload: (form) => call('/v1/flaky-tests/upload', { method: 'POST', body: form }),
  };
}
