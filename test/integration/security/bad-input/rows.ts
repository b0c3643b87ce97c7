/**
 * The shape of a bad-input row: one request and the exact answer it must get. Each area keeps its rows
 * in a file of its own next to this one (merge-queue.ts, platform.ts, ...) and bad-input.test.ts runs
 * every list it imports, one named test per row; a new area appends its file there.
 */

/** What a row may use: the organisation's queue, a PR queued in it (so the queue is not empty). */
export interface BadInputContext {
  queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };
  queuedPr: number;
  /** A listPullRequests cursor this server issued for the queue's unfiltered listing. */
  cursor: string;
}

export interface BadInputRow {
  name: string;
  method?: 'GET' | 'POST';
  route: string;
  /** Sent as JSON; a string or Buffer is sent as it is (malformed bodies, exact sizes). */
  body?: unknown;
  /** Computes the body from the context instead. */
  bodyOf?: (ctx: BadInputContext) => unknown;
  headers?: Record<string, string>;
  /** The organisation's key unless `none` (no header) or a literal token. */
  auth?: 'none' | { token: string };
  status: number;
  /** The whole plain-text body, exactly; null for an ordinary JSON answer. */
  message: string | null;
}

/** The queue every row talks to unless it says otherwise. */
export const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

export const withQueue = (extra: object) => ({ ...QUEUE, ...extra });

export const withRepo = (repo: object) => ({ ...QUEUE, repo: { ...QUEUE.repo, ...repo } });
