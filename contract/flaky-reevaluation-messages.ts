/**
 * The flaky-test re-evaluation's input and result (flakyReevaluationWorkflow, ADR 0020), and the
 * result's arithmetic: the page activity (activities/flaky.ts) and the workflow add summaries up the
 * same way, and the workflow may load nothing but the contract and the engine.
 *
 * Invariant: addSummaries is associative with EMPTY_SUMMARY as identity, so any grouping of pages and
 * runs gives the same total; `failed` keeps the first MAX_FAILED_LABELS labels in the order added, the
 * count has them all.
 */

export interface ReevaluationSummary {
  /** Repositories swept to the end. */
  readonly repositories: number;
  readonly evaluated: number;
  readonly changed: number;
  readonly recorded: number;
  /** Repositories whose sweep threw; the others were swept all the same. */
  readonly failedRepositories: number;
  /** The first MAX_FAILED_LABELS of them, as `host/owner/name (organisation slug)`. */
  readonly failed: readonly string[];
}

export interface FlakyReevaluationInput {
  /** Repositories per page (one activity); default 100, at most MAX_REEVALUATION_PAGE_SIZE. */
  readonly pageSize?: number;
  /** Pages swept at once; default 2. */
  readonly concurrency?: number;
  /** Pages per run before continuing as new; default 50. */
  readonly pagesPerRun?: number;
  /** Carried across continue-as-new: the last repository key listed, and the summary so far. */
  readonly after?: string;
  readonly carried?: ReevaluationSummary;
}

export const DEFAULT_REEVALUATION_PAGE_SIZE = 100;
export const DEFAULT_REEVALUATION_CONCURRENCY = 2;
export const DEFAULT_REEVALUATION_PAGES_PER_RUN = 50;

/**
 * The most events one run of the workflow records with `pagesPerRun` pages: a page costs at most two
 * activities (scheduled, started, completed: 3 events each) and the two workflow tasks that take their
 * results (scheduled, started, completed: 3 each); the start, the first workflow task, the listing of
 * an empty last page and the close cost at most 12 more. With the defaults: 612, far below Temporal's
 * 10,240-event warning.
 */
export const reevaluationHistoryBound = (pagesPerRun: number): number => 12 * pagesPerRun + 12;

/** The most repositories one page may hold: a page is one activity, which must stay small. */
export const MAX_REEVALUATION_PAGE_SIZE = 1000;

/** The summary keeps this many failed repositories by name; the count has them all. */
export const MAX_FAILED_LABELS = 20;

export const EMPTY_SUMMARY: ReevaluationSummary = {
  repositories: 0,
  evaluated: 0,
  changed: 0,
  recorded: 0,
  failedRepositories: 0,
  failed: [],
};

export function addSummaries(a: ReevaluationSummary, b: ReevaluationSummary): ReevaluationSummary {
  return {
    repositories: a.repositories + b.repositories,
    evaluated: a.evaluated + b.evaluated,
    changed: a.changed + b.changed,
    recorded: a.recorded + b.recorded,
    failedRepositories: a.failedRepositories + b.failedRepositories,
    failed: [...a.failed, ...b.failed].slice(0, MAX_FAILED_LABELS),
  };
}
