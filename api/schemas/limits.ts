/**
 * The largest values a tenant may set through the merge-queue API. Each one is carried in a queue
 * workflow's state (held by the worker every organisation shares, and handed on whole at every
 * continue-as-new, a single Temporal payload of at most 2 MB) or sizes the work a queue asks of it,
 * so each is bounded, and a value past its bound is a 400 naming the field rather than a workflow
 * that fails later for everyone on the same worker.
 *
 * Sizes are counted as stored, in UTF-8 bytes of JSON, not UTF-16 units (issue 24: a control
 * character is one unit but six bytes). One setImpactedTargets request carries at most 1,000 targets
 * of 256 characters, without control characters, and at most 256 KiB of JSON (an eighth of a payload); requiredStatuses at most 50 names of 255 characters (the length
 * of a reportTestStatus `context`, so every required status can be reported). Queue settings stay in
 * the ranges of GitHub's merge queue (1 to 100 builds or PRs at once); durations at most a week.
 * docs/operations.md lists them with the per-organisation counts.
 */

export const MAX_IMPACTED_TARGETS = 1_000;
export const MAX_TARGET_LENGTH = 256;
/** UTF-8 bytes of the list as JSON (contract/json-bytes.ts): 1,000 ASCII targets of 256 fit. */
export const MAX_IMPACTED_TARGETS_BYTES = 262_144;

export const MAX_REQUIRED_STATUSES = 50;
export const MAX_STATUS_LENGTH = 255;

/** A commit id: 40 (SHA-1) or 64 (SHA-256) hex digits in practice, bounded generously. */
export const MAX_SHA_LENGTH = 255;

/** concurrency, bisectionConcurrency, batchingMinSize and pendingFailureDepth. */
export const MAX_QUEUE_COUNT_SETTING = 100;
/** testingTimeoutMinutes and batchingMaxWaitTimeMinutes: a week. */
export const MAX_QUEUE_MINUTES_SETTING = 10_080;

/**
 * Reads that fan out into one Temporal query each (getMergeQueueTestingDetails without a testRunId,
 * getSubmittedPullRequests): at most this many per request, read 10 at a time.
 */
export const MAX_RUNS_IN_PROGRESS_LISTED = 50;
export const MAX_PRS_PER_BATCH_READ = 50;
