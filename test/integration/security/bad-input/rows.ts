/**
 * The shape of a bad-input row: one request and the exact answer it must get. Each area keeps its rows
 * in a file of its own next to this one (merge-queue.ts, platform.ts, ...) and bad-input.test.ts runs
 * every list it imports, one named test per row; a new area appends its file there.
 */
import type { Sentinel } from '../support/sentinel';

/** What a row may use: the organisation's queue, a PR queued in it (so the queue is not empty). */
export interface BadInputContext {
  queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };
  queuedPr: number;
  /** A listPullRequests cursor this server issued for the queue's unfiltered listing. */
  cursor: string;
  /** The flaky-test area: a repository with uploaded results (see flaky-tests.ts). */
  flaky: {
    /** The time range the tokens below were issued for; results were uploaded inside it. */
    range: { start_time: string; end_time: string };
    /** next_page_token of list-failing-tests over `range` with page_size 1. */
    pageToken: string;
    /** The same listing's token, issued to another organisation for its repository of the same name. */
    otherOrgPageToken: string;
    /** The id of a test case of the repository. */
    testId: string;
  };
  /** The webhook area: a subscription of the organisation. */
  webhooks: { subscriptionId: string };
  /** Targets of external-entity rows that notice being touched. */
  sentinel: Sentinel;
  /** The executor area: a credential of an executor that holds no job. */
  executor: { credential: string };
}

export interface BadInputAnswer {
  status: number;
  body: string;
}

export interface BadInputRow {
  name: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /**
   * `executor`: sent to the executor routes (/v1/executor/*), authenticated with the context's executor
   * credential as `Authorization: Bearer` (`auth`'s token instead when given; none with `none`).
   */
  on?: 'executor';
  /** The path (with query); `routeOf` computes it from the context instead. */
  route: string;
  routeOf?: (ctx: BadInputContext) => string;
  /** Sent as JSON; a string or Buffer is sent as it is (malformed bodies, exact sizes). */
  body?: unknown;
  /** Computes the body from the context instead. */
  bodyOf?: (ctx: BadInputContext) => unknown;
  headers?: Record<string, string>;
  /** The organisation's key (the executor credential for `on: 'executor'`) unless `none` or a literal token. */
  auth?: 'none' | { token: string };
  status: number;
  /** The whole plain-text body, exactly; null for an ordinary JSON answer. */
  message: string | null;
  /** Further assertions on the answer (what must not have happened on the way). */
  check?: (answer: BadInputAnswer, ctx: BadInputContext) => void | Promise<void>;
  /**
   * The answer may cost the process serving it (the test's own) at most this many CPU-seconds (inputs
   * that cost CPU). CPU, not wall time: a machine at load 12 stretched the same answers past 15 s.
   */
  withinCpuSeconds?: number;
}

/** The queue every row talks to unless it says otherwise. */
export const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

export const withQueue = (extra: object) => ({ ...QUEUE, ...extra });

export const withRepo = (repo: object) => ({ ...QUEUE, repo: { ...QUEUE.repo, ...repo } });
