/**
 * One GitHub REST client per installation (docs/github.md, "Rate limits"): `@octokit/core` with
 * `@octokit/plugin-throttling` (queues requests, waits out primary and secondary limits with
 * `retry-after`) and `@octokit/plugin-retry` (retries 5xx and transport errors), authenticated with
 * the installation's token from GitHubAppAuth.
 *
 * Invariants:
 * - The token is set on each request from the auth cache, so a refreshed token is used at once; a 401
 *   drops the cached token and the request is sent once more with a fresh one (tokens can be revoked
 *   or expire early). Nothing here logs or throws a credential: failures become GitHubApiError, whose
 *   message names the route and GitHub's status only.
 * - Conditional reads: every GET answer with an ETag is kept (bounded, per installation) and the next
 *   identical GET sends `If-None-Match`; a 304 (which costs no rate limit) answers with the kept data.
 * - A limit is waited out at most `maxLimitRetries` times per request; after that the call fails and
 *   the activity's own retry policy takes over, so a long limit never pins a worker slot.
 * - Clients are created lazily and kept per installation id (bounded).
 * - Writes are paced per lane and installation (plugin-throttling's write and notification groups,
 *   owned by this factory): a lane's burst never delays another lane or another installation.
 */
import Bottleneck from 'bottleneck';
import type { GitHubAppAuth } from './app-auth';
import { wrap } from './app-auth';

export interface GitHubResponse<T> {
  status: number;
  data: T;
  /** Lower-case header names. */
  headers: Record<string, string | number | undefined>;
}

export interface GitHubRest {
  readonly installationId: number;
  /** `route` as Octokit takes it, e.g. `GET /repos/{owner}/{repo}/pulls/{pull_number}`. */
  request<T = unknown>(route: string, params?: Record<string, unknown>): Promise<GitHubResponse<T>>;
}

export interface GitHubClients {
  forInstallation(installationId: number): Promise<GitHubRest>;
}

/** A failed call: `status` is GitHub's answer (0 when it could not be reached). */
export class GitHubApiError extends Error {
  override readonly name = 'GitHubApiError';
  constructor(
    message: string,
    readonly status: number,
    /** GitHub's `message`, scrubbed of anything shaped like a credential. */
    readonly reason: string | null,
  ) {
    super(message);
  }
}

export interface GitHubClientOptions {
  /** Times a primary or secondary limit is waited out per request (default 2). */
  maxLimitRetries?: number;
  /** Longest `retry-after` waited out inside one call; longer limits fail the call (default 60 s). */
  maxLimitWaitSeconds?: number;
  /** ETag entries kept per installation (default 2,000). */
  maxCachedReads?: number;
  /** Retries of 5xx answers (plugin-retry; default 3). */
  retries?: number;
  onLimit?: (what: 'primary' | 'secondary', retryAfterSeconds: number, route: string) => void;
  /**
   * Name of these clients' write lane. Writes are paced per lane and installation: clients of another
   * lane (the PR presenter's) never delay these, and one installation's writes never delay another's.
   */
  lane?: string;
  /** Least time between two writes of one installation in this lane (default 1,000 ms, Octokit's). */
  writeIntervalMs?: number;
  /** Least time between two writes that notify people (comments; default 3,000 ms, Octokit's). */
  notificationIntervalMs?: number;
  /**
   * Processes writing to GitHub for the same installations (platform/replica-census.ts), this one
   * included: both intervals are multiplied by it, so N processes together keep each installation's
   * pace, as GitHub counts an installation's writes however many processes send them. 1 when absent.
   */
  writers?: () => number;
}

interface Cached {
  etag: string;
  data: unknown;
  headers: Record<string, string | number | undefined>;
}

export async function createGitHubClients(
  settings: { apiUrl: string },
  auth: Pick<GitHubAppAuth, 'installationToken' | 'forget'>,
  opts: GitHubClientOptions = {},
): Promise<GitHubClients> {
  const [{ Octokit }, { throttling }, { retry }] = await Promise.all([
    import('@octokit/core'),
    import('@octokit/plugin-throttling'),
    import('@octokit/plugin-retry'),
  ]);
  const Client = Octokit.plugin(throttling, retry);
  const maxLimitRetries = opts.maxLimitRetries ?? 2;
  const maxWait = opts.maxLimitWaitSeconds ?? 60;
  const maxCached = opts.maxCachedReads ?? 2_000;
  const clients = new Map<number, GitHubRest>();
  const lane = opts.lane ?? 'core';
  // This factory's own pacing groups (Octokit's would be shared with every client in the process).
  const writeInterval = opts.writeIntervalMs ?? 1_000;
  const notificationInterval = opts.notificationIntervalMs ?? 3_000;
  const writeGroup = new Bottleneck.Group({ maxConcurrent: 1, minTime: writeInterval });
  const notificationGroup = new Bottleneck.Group({ maxConcurrent: 1, minTime: notificationInterval });
  // The writer count as last applied; a change re-paces the groups' future and existing limiters.
  let pacedFor = 1;
  const pace = (): void => {
    const n = Math.max(1, Math.floor(opts.writers?.() ?? 1));
    if (n === pacedFor) return;
    pacedFor = n;
    for (const [group, interval] of [
      [writeGroup, writeInterval],
      [notificationGroup, notificationInterval],
    ] as const) {
      group.updateSettings({ minTime: interval * n });
      for (const { limiter } of group.limiters()) void limiter.updateSettings({ minTime: interval * n });
    }
  };

  function build(installationId: number): GitHubRest {
    const onLimit =
      (what: 'primary' | 'secondary') =>
      (retryAfter: number, options: { method?: string; url?: string }, _o: unknown, retryCount: number) => {
        opts.onLimit?.(what, retryAfter, `${options.method ?? ''} ${options.url ?? ''}`);
        return retryCount < maxLimitRetries && retryAfter <= maxWait;
      };
    const octokit = new Client({
      baseUrl: settings.apiUrl,
      userAgent: 'railyard',
      throttle: {
        onRateLimit: onLimit('primary'),
        onSecondaryRateLimit: onLimit('secondary'),
        // Octokit keeps its pacing groups per process and keys them by this id ("no-id" otherwise):
        // without it every installation would share one write lane.
        id: `${lane}:${installationId}`,
        write: writeGroup,
        notifications: notificationGroup,
      },
      retry: {
        retries: opts.retries ?? 3,
        doNotRetry: [304, 400, 401, 403, 404, 405, 409, 410, 422, 429, 451],
      },
    });
    const cache = new Map<string, Cached>();

    octokit.hook.before('request', async (options) => {
      pace();
      const token = await auth.installationToken(installationId);
      options.headers.authorization = token.authorization();
    });
    octokit.hook.wrap('request', async (request, options) => {
      const isGet = options.method === 'GET';
      const key = isGet ? cacheKey(options) : '';
      const held = isGet ? cache.get(key) : undefined;
      if (held) options.headers['if-none-match'] = held.etag;
      const send = async () => {
        try {
          return await request(options);
        } catch (err) {
          if (statusOf(err) !== 401) throw err;
          // A revoked or early-expired token: mint a new one and try once more.
          auth.forget(installationId);
          const token = await auth.installationToken(installationId);
          options.headers.authorization = token.authorization();
          return await request(options);
        }
      };
      try {
        const response = await send();
        const etag = response.headers.etag;
        if (isGet && typeof etag === 'string') {
          if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
          cache.set(key, { etag, data: response.data, headers: { ...response.headers } });
        }
        return response;
      } catch (err) {
        if (held && statusOf(err) === 304) {
          // Refresh its place so often-read entries stay.
          cache.delete(key);
          cache.set(key, held);
          return {
            status: 200,
            url: options.url,
            data: held.data,
            headers: { ...held.headers },
            retryCount: 0,
          };
        }
        throw err;
      }
    });

    return {
      installationId,
      async request<T>(route: string, params: Record<string, unknown> = {}) {
        try {
          const r = await octokit.request(route, params);
          return { status: r.status, data: r.data as T, headers: r.headers };
        } catch (err) {
          const failure = wrap(err, `GitHub ${route}`);
          const reason = /: GitHub answered \d+: (.*)\.$/.exec(failure.message)?.[1] ?? null;
          throw new GitHubApiError(failure.message, failure.status ?? 0, reason);
        }
      },
    };
  }

  return {
    forInstallation(installationId) {
      pace();
      let client = clients.get(installationId);
      if (!client) {
        if (clients.size >= 10_000) clients.clear();
        client = build(installationId);
        clients.set(installationId, client);
      }
      return Promise.resolve(client);
    },
  };
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The route and its parameters (not the headers): two GETs of the same resource share an entry. */
function cacheKey(options: { url: string; [k: string]: unknown }): string {
  const params = Object.entries(options)
    .filter(([k]) => !['headers', 'request', 'baseUrl', 'mediaType', 'method'].includes(k))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(params);
}
