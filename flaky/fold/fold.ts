/**
 * foldRepository: folds one repository's acknowledged uploads (flaky_fold_pending) into everything
 * derived from their raw rows, in batches, each batch ONE transaction:
 *  1. a per-repository advisory lock (one folder per repository at a time, whichever process);
 *  2. the batch: the repository's oldest pending uploads, at most `maxResults` attempts (at least one
 *     upload);
 *  3. the batch's tests that can change status (failed here, or unsettled: see needsReclassification)
 *     locked by primary key;
 *  4. one statement that aggregates the batch's runs (its queue rows' per-test counts, which equal
 *     its raw rows': store/batch-runs.ts) into ONE upsert per test per day (test_day_rollups), one
 *     per test, day and fingerprint (test_failure_fingerprints,
 *     from the pending rows' failures), the PRs a test failed on (test_pr_failures) and
 *     test_cases.last_failure_at; then the per-test summaries of the tests given new fingerprints
 *     and of a bounded number gone stale, for the batch's last day (store/test-case-summaries.ts);
 *  5. re-classification of the locked tests at the batch's last upload time + 1 ms (the upload's own
 *     results inside every half-open window, as when ingestion classified in the upload's
 *     transaction), writing test_status_history and the test_case.status_changed outbox;
 *  6. the quarantine lifecycle of the locked tests (store/quarantine-lifecycle.ts): their consecutive
 *     clean runs, releases after enough of them, and releases ended by a failure, with the statuses
 *     step 5 computed; steps 5 and 6 write each test row ONCE (statuses and counts in one UPDATE);
 *  7. the batch's pending rows deleted.
 *
 * Exactly once: steps 4–7 commit together, so an upload is folded by the transaction that deletes its
 * pending row and by no other; a crash (or a conflict) before the commit leaves the row, and a later
 * fold takes the upload again from its raw rows. Lock order as in store/db.ts: test cases, then
 * rollups, each by primary key; the advisory lock comes first and is per repository, so two folds
 * never share a test.
 *
 * A batch folds several uploads of a test at once: rollups and counts are the same as folding them
 * one by one; classification sees the batch's results together, so a status that an upload in the
 * middle of a batch would have set and the next one undone is not recorded. The per-test summaries
 * are written in step 4: derived from the same rows by the same transaction, exactly once.
 */
import { type Pool, type PoolClient } from '../../stores/db';
import { type ClassificationParams } from '../classification';
import { inTransaction } from '../store/db';
import { finishFold, foldCandidates, foldRows, lockRepositoryFold, takeFoldBatch } from '../store/fold-queue';
import { planReleases, writeReleaseRecords } from '../store/quarantine-lifecycle';
import { classifyTests, outcomeOf, settledLookbackMs, writeChanges } from '../store/reclassify';
import { findRepositoryByPk } from '../store/repositories';
import { lockTestCases, type TestCaseState } from '../store/test-case-reads';
import { refreshTestCaseSummaries } from '../store/test-case-summaries';

export { DEFAULT_FOLD_MAX_RESULTS } from '../store/fold-queue';

export interface FoldOptions {
  /** Attempts per batch (an upload is never split); the batch's transaction grows with it. */
  readonly maxResults?: number;
  /** Fold only uploads up to this pk (an inline fold waits for its own upload, not later ones). */
  readonly through?: string;
  /** Try the repository's lock once and give up when another fold holds it (the loop); else wait. */
  readonly skipLocked?: boolean;
  /** Stop after this many batches (the loop's turn per repository, so that none starves the others). */
  readonly maxBatches?: number;
  /** Called after the writes of a batch, before its commit (the crash test stops the process here). */
  readonly beforeCommit?: (batch: FoldBatch) => Promise<void>;
}

export interface FoldBatch {
  readonly repositoryPk: string;
  readonly uploadPks: readonly string[];
}

export interface FoldOutcome {
  /** Uploads folded, and their attempts. */
  readonly uploads: number;
  readonly results: number;
  /** Tests re-classified, and how many changed status. */
  readonly reclassified: number;
  readonly statusChanges: number;
  /** test_case.status_changed outbox rows written (dispatch them; already committed). */
  readonly events: readonly string[];
  /** Per folded upload, seconds from its acknowledgement to the fold's last statement (DB clock). */
  readonly lagSeconds: readonly number[];
  /** False when `skipLocked` found another fold at work on the repository. */
  readonly locked: boolean;
}

const NOTHING: FoldOutcome = {
  uploads: 0,
  results: 0,
  reclassified: 0,
  statusChanges: 0,
  events: [],
  lagSeconds: [],
  locked: true,
};

/** Folds batches until the repository has nothing pending (up to `through`), or its lock is taken. */
export async function foldRepository(
  pool: Pool,
  repositoryPk: string,
  options: FoldOptions = {},
  onBatch?: (outcome: FoldOutcome) => void,
): Promise<FoldOutcome> {
  let total = NOTHING;
  for (let batches = 1; ; batches += 1) {
    const outcome = await inTransaction(pool, (client) => foldBatch(client, repositoryPk, options));
    onBatch?.(outcome);
    total = {
      uploads: total.uploads + outcome.uploads,
      results: total.results + outcome.results,
      reclassified: total.reclassified + outcome.reclassified,
      statusChanges: total.statusChanges + outcome.statusChanges,
      events: [...total.events, ...outcome.events],
      lagSeconds: [...total.lagSeconds, ...outcome.lagSeconds],
      locked: outcome.locked,
    };
    if (outcome.uploads === 0 || !outcome.locked || batches >= (options.maxBatches ?? Infinity)) return total;
  }
}

async function foldBatch(
  client: PoolClient,
  repositoryPk: string,
  options: FoldOptions,
): Promise<FoldOutcome> {
  if (!(await lockRepositoryFold(client, repositoryPk, options.skipLocked === true)))
    return { ...NOTHING, locked: false };
  const batch = await takeFoldBatch(client, repositoryPk, options);
  if (batch.uploadPks.length === 0) return NOTHING;
  const repository = await findRepositoryByPk(client, repositoryPk);
  if (repository === null) return NOTHING; // deleted meanwhile: its pending rows went with it
  const { params } = repository;
  const evaluationTime = new Date(batch.lastAt.getTime() + 1);

  const candidates = await foldCandidates(client, batch, params);
  const locked = await lockTestCases(client, [...candidates.keys()]);
  const results = await foldRows(client, repositoryPk, batch);
  await refreshTestCaseSummaries(client, repositoryPk, batch.uploadPks, batch.lastAt);
  const fresh = [...locked.values()].filter((state) =>
    needsReclassification(state, candidates.get(state.pk) === true, params, batch.lastAt),
  );
  // Statuses, clean runs and release times of a test are written by ONE update (writeChanges).
  const changes = await classifyTests(client, fresh, params, evaluationTime);
  const statuses = new Map(changes.updates.map((u) => [u.pk, u.next]));
  const releases = await planReleases(
    client,
    repository,
    batch,
    [...locked.keys()],
    evaluationTime,
    statuses,
  );
  const events = await writeChanges(client, changes, evaluationTime, 'ingest', releases.counts);
  await writeReleaseRecords(client, releases, repository.releaseAfterCleanRuns, evaluationTime);
  const classified = outcomeOf(changes, events);
  await options.beforeCommit?.({ repositoryPk, uploadPks: batch.uploadPks });
  const lagSeconds = await finishFold(client, batch.uploadPks);
  return {
    uploads: batch.uploadPks.length,
    results,
    reclassified: classified.evaluated,
    statusChanges: classified.changed,
    events: classified.events,
    lagSeconds,
    locked: true,
  };
}

const SETTLED_HEALTHY = new Set(['no_signal', 'recovered']);

/**
 * Whether a test of the batch can change status. One that is healthy for a settled reason
 * (`no_signal`, `recovered`), did not fail in the batch and has no failure within the longest rule
 * window (W_MIX, W_RATE, W_BRK) cannot: a pass then neither creates same-commit disagreement nor
 * pushes a failure rate over its threshold. Everything else (new tests, failures, unhealthy, stale
 * or never-run tests, recent failures) is re-classified.
 */
export function needsReclassification(
  state: TestCaseState,
  failed: boolean,
  params: ClassificationParams,
  at: Date,
): boolean {
  const lookbackMs = settledLookbackMs(params);
  return (
    state.classifiedAt === null ||
    state.status !== 'healthy' ||
    !SETTLED_HEALTHY.has(state.statusReason) ||
    failed ||
    (state.lastFailureAt !== null && state.lastFailureAt.getTime() >= at.getTime() - lookbackMs)
  );
}
