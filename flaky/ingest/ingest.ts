/**
 * ingestUpload: one upload, one transaction. The parsed files are prepared (pure), then written:
 * the upload row (its unique key makes a re-send a no-op), the test cases, the raw attempts, the
 * rollups, and the new status of every test the upload could have changed.
 *
 * Which tests are re-classified: a test whose verdict provably cannot move is skipped — one that is
 * healthy for a settled reason (`no_signal`, `recovered`), passed or skipped here, and has no failure
 * within the longest rule window (W_MIX, W_RATE, W_BRK): a pass can then neither create same-commit
 * disagreement nor push a failure rate over its threshold. Everything else (new tests, failures,
 * unhealthy, stale or never-run tests, recent failures) is re-classified, at the upload's time + 1 ms
 * so the upload's own results are inside every half-open window.
 *
 * Statements per upload: the upload row; a lean lookup of every test (key, "unsettled"); the lock
 * of the tests that failed here or are unsettled (full state, by primary key); one statement with
 * every bulk write (rows.ts); the history of the locked tests; one statement with their changes.
 *
 * Concurrency: rows are locked test cases first, then rollups, each by primary key (store/db.ts).
 * A test whose state another upload changes between our read and our lock is re-classified by
 * whichever of the two sees it as needing it, and at worst by the next scheduled re-evaluation.
 */
import { type Pool, type PoolClient } from '../../stores/db';
import { type ClassificationParams, isInfraUpload } from '../classification';
import { inTransaction } from '../store/db';
import { type OutboxSink } from '../store/event-outbox';
import { reclassify, settledLookbackMs } from '../store/reclassify';
import { ensureRepository, type RepositoryRecord } from '../store/repositories';
import { insertUpload, storedUpload } from '../store/uploads';
import { lockTestCases, type TestCaseState } from '../store/test-case-reads';
import { dayOf } from '../store/windows';
import { type TestIds } from '../test-ids';
import { type PreparedTest, type PreparedUpload, prepareUpload } from './prepare';
import { compareKeys, writeUploadRows } from '../store/ingest-rows';
import { ensureTestCases, updateOwners } from '../store/ingest-test-cases';
import { UploadConflictError, type UploadInput, type UploadOutcome } from './types';

const SETTLED_HEALTHY = new Set(['no_signal', 'recovered']);

/**
 * `sink` gets the test_case.status_changed outbox rows the upload wrote, after the commit (a re-sent
 * upload writes none). `ids` may remember test ids between uploads (test-ids.ts).
 */
export async function ingestUpload(
  pool: Pool,
  input: UploadInput,
  now: Date,
  sink?: OutboxSink,
  ids?: TestIds,
): Promise<UploadOutcome> {
  return ingestPrepared(pool, input, prepareUpload(input, ids), now, sink);
}

/** ingestUpload for a caller that already prepared the upload (it needs the tests, see judge.ts). */
export async function ingestPrepared(
  pool: Pool,
  input: UploadInput,
  prepared: PreparedUpload,
  now: Date,
  sink?: OutboxSink,
): Promise<UploadOutcome> {
  const repository = await ensureRepository(pool, input.organisationId, input.repository);
  const infra = isInfraUpload(
    { uploadId: input.metadata.uploadId, results: prepared.results, failures: prepared.failures },
    repository.params,
  );
  const { outcome, events } = await inTransaction(pool, (client) =>
    write(client, input, prepared, repository, infra, now),
  );
  if (events.length > 0) sink?.(events);
  return outcome;
}

async function write(
  client: PoolClient,
  input: UploadInput,
  prepared: PreparedUpload,
  repository: RepositoryRecord,
  infra: boolean,
  at: Date,
): Promise<{ outcome: UploadOutcome; events: readonly string[] }> {
  const { metadata } = input;
  const base = {
    uploadId: metadata.uploadId,
    files: prepared.files,
    tests: prepared.tests.length,
    results: prepared.results,
    failures: prepared.failures,
    skipped: prepared.skipped,
    infra,
  };
  const uploadPk = await insertUpload(client, repository.pk, input, prepared, infra, at);
  if (uploadPk === null)
    return {
      outcome: await duplicateOutcome(client, repository.pk, metadata.uploadId, prepared.digest),
      events: [],
    };

  const day = dayOf(at);
  const lookbackMs = settledLookbackMs(repository.params);
  const refs = await ensureTestCases(client, {
    organisationId: input.organisationId,
    repositoryPk: repository.pk,
    tests: prepared.tests,
    at,
    recentFailureSince: new Date(at.getTime() - lookbackMs),
  });
  const entries = prepared.tests
    .map((test) => ({
      test,
      ref: refs.get(test.id)!,
      failed: test.attempts.some((a) => a.outcome === 'fail'),
    }))
    .sort((a, b) => compareKeys(a.ref.pk, b.ref.pk));
  const locked = await lockTestCases(
    client,
    entries.filter((e) => e.failed || e.ref.unsettled).map((e) => e.ref.pk),
  );
  if (metadata.codeowners !== undefined)
    await updateOwners(
      client,
      entries.map((e) => ({ pk: e.ref.pk, codeowners: e.test.codeowners })),
    );

  const rows = {
    uploadPk,
    repositoryPk: repository.pk,
    at,
    day,
    infra,
    ...(metadata.prNumber === undefined ? {} : { prNumber: metadata.prNumber }),
    tests: entries.map(({ test, ref }) => ({ pk: ref.pk, test })),
  };
  await writeUploadRows(client, rows);

  const fresh = entries
    .map(({ test, ref }) => ({ test, state: locked.get(ref.pk) }))
    .filter((e): e is { test: PreparedTest; state: TestCaseState } => e.state !== undefined)
    .filter(({ test, state }) => needsReclassification(state, test, repository.params, at));
  const outcome = await reclassify(
    client,
    fresh.map((e) => e.state),
    repository.params,
    new Date(at.getTime() + 1),
    'ingest',
  );
  return {
    outcome: { ...base, created: true, reclassified: outcome.evaluated, statusChanges: outcome.changed },
    events: outcome.events,
  };
}

/** Stored-state part mirrored in SQL by ensureTestCases' `unsettled` (test-cases.ts). */
export function needsReclassification(
  state: TestCaseState,
  test: PreparedTest,
  params: ClassificationParams,
  at: Date,
): boolean {
  const lookbackMs = settledLookbackMs(params);
  return (
    state.classifiedAt === null ||
    state.status !== 'healthy' ||
    !SETTLED_HEALTHY.has(state.statusReason) ||
    test.attempts.some((a) => a.outcome === 'fail') ||
    (state.lastFailureAt !== null && state.lastFailureAt.getTime() >= at.getTime() - lookbackMs)
  );
}

async function duplicateOutcome(
  client: PoolClient,
  repositoryPk: string,
  uploadId: string,
  digest: string,
): Promise<UploadOutcome> {
  const stored = (await storedUpload(client, repositoryPk, uploadId))!;
  if (stored.content_digest !== digest) throw new UploadConflictError(uploadId);
  return {
    created: false,
    uploadId,
    files: stored.files,
    tests: stored.tests,
    results: stored.results,
    failures: stored.failures,
    skipped: stored.skipped,
    infra: stored.infra,
    reclassified: 0,
    statusChanges: 0,
  };
}
