/**
 * The fold (issue 26, ADR 0018): what turns acknowledged uploads' raw rows into rollups, failure
 * fingerprints, PR failures and classification, asynchronously and exactly once. The queue and the
 * SQL are ../store/fold-queue.ts (the acknowledgement's side is its enqueueFold); fold.ts is one
 * repository's batches, loop.ts the process that runs them, metrics.ts how fresh the reads are.
 */
export {
  DEFAULT_FOLD_MAX_RESULTS,
  type FoldBatch,
  type FoldOptions,
  type FoldOutcome,
  foldRepository,
  needsReclassification,
} from './fold';
export {
  createFoldLoop,
  DEFAULT_FOLD_CONCURRENCY,
  DEFAULT_FOLD_INTERVAL_MS,
  type FoldLoop,
  type FoldLoopOptions,
} from './loop';
export { createFoldMetrics, type FoldMetrics } from './metrics';
