/**
 * ingestUpload: durable first, fold later (issue 26, ADR 0018). One transaction stores what the
 * upload IS — the upload row (its unique key makes a re-send a no-op), the test cases it needs (and
 * their owners from the upload's CODEOWNERS), its attempts with one binary COPY (store/copy-results.ts)
 * and its row in the fold queue (store/fold-queue.ts) — and its commit is the acknowledgement. Everything
 * derived from those rows (day rollups, failure fingerprints, PR failures, last failure, the tests'
 * classification and its webhooks) is the fold's (fold/fold.ts), exactly once per upload.
 *
 * When the fold runs is the caller's choice (`FoldMode`):
 *  - `async` (the API server): the upload is answered right after the commit, with `reclassified` and
 *    `statusChanges` 0 (nothing is classified yet); the fold loop folds it within its lag, and `wake`
 *    tells the loop of this process that there is work.
 *  - `inline` (the default: tests, the merge queue's runner, which needs the verdict after
 *    classification): after the commit the call folds the repository's pending uploads up to this one
 *    (waiting for a fold another process runs on it) and answers that fold's counts, as ingestion
 *    did when it classified inside the upload's transaction.
 *
 * Statements per acknowledgement: the upload row; a lean lookup of every test (pk, id) and one insert
 * of the new ones; the owners where they changed; the COPY; the queue row.
 */
import { type Pool, type PoolClient } from '../../stores/db';
import { isInfraUpload } from '../classification';
import { foldRepository, type FoldOutcome } from '../fold/fold';
import {
  enqueueFold,
  groupFailures,
  type PendingFailure,
  pendingFailures,
  type PendingRuns,
} from '../store/fold-queue';
import { copyResults, encodeResults, fillEncodedRows } from '../store/copy-results';
import { inTransaction } from '../store/db';
import { type OutboxSink } from '../store/event-outbox';
import { ensureRepository, type RepositoryRecord } from '../store/repositories';
import { insertUpload, storedUpload } from '../store/uploads';
import { computedTestIds, type TestIds } from '../test-ids';
import { runsOfRows, runsOfTests } from './pending-runs';
import { type PreparedTests, prepareUpload } from './prepare';
import { type PreparedRows, prepareRows, rowsTest } from './prepare-rows';
import { ensureTestCases, type NewTest, updateOwners } from '../store/ingest-test-cases';
import { UploadConflictError, type UploadInput, type UploadOutcome } from './types';

/**
 * An upload ready to store: as rows the parser thread encoded (prepare-rows.ts, the common case of
 * one file through the parser pool) or as one object per test and attempt (prepare.ts, any upload).
 */
export type PreparedUpload = PreparedTests | PreparedRows;

export type FoldMode = { readonly kind: 'inline' } | { readonly kind: 'async'; readonly wake?: () => void };

export interface IngestOptions {
  /** Gets the test_case.status_changed outbox rows of an inline fold, after its commit. */
  readonly sink?: OutboxSink;
  /** May remember test ids between uploads (test-ids.ts). */
  readonly ids?: TestIds;
  /** Default `inline`. */
  readonly fold?: FoldMode;
}

export async function ingestUpload(
  pool: Pool,
  input: UploadInput,
  now: Date,
  options: IngestOptions = {},
): Promise<UploadOutcome> {
  const ids = options.ids ?? computedTestIds;
  return ingestPrepared(pool, input, prepareRows(input, ids) ?? prepareUpload(input, ids), now, options);
}

/** ingestUpload for a caller that already prepared the upload (it needs the tests, see judge.ts). */
export async function ingestPrepared(
  pool: Pool,
  input: UploadInput,
  prepared: PreparedUpload,
  now: Date,
  options: IngestOptions = {},
): Promise<UploadOutcome> {
  const repository = await ensureRepository(pool, input.organisationId, input.repository);
  const infra = isInfraUpload(
    { uploadId: input.metadata.uploadId, results: prepared.results, failures: prepared.failures },
    repository.params,
  );
  const stored = await inTransaction(pool, (client) =>
    acknowledge(client, input, prepared, repository, infra, now),
  );
  if (stored.kind === 'duplicate') return stored.outcome;
  const fold = options.fold ?? { kind: 'inline' };
  switch (fold.kind) {
    case 'async':
      fold.wake?.();
      return stored.outcome;
    case 'inline': {
      const folded: FoldOutcome = await foldRepository(pool, repository.pk, { through: stored.uploadPk });
      if (folded.events.length > 0) options.sink?.(folded.events);
      return { ...stored.outcome, reclassified: folded.reclassified, statusChanges: folded.statusChanges };
    }
  }
}

type Stored =
  | { readonly kind: 'created'; readonly uploadPk: string; readonly outcome: UploadOutcome }
  | { readonly kind: 'duplicate'; readonly outcome: UploadOutcome };

async function acknowledge(
  client: PoolClient,
  input: UploadInput,
  prepared: PreparedUpload,
  repository: RepositoryRecord,
  infra: boolean,
  at: Date,
): Promise<Stored> {
  const { metadata } = input;
  const uploadPk = await insertUpload(client, repository.pk, input, prepared, infra, at);
  if (uploadPk === null)
    return {
      kind: 'duplicate',
      outcome: await duplicateOutcome(client, repository.pk, metadata.uploadId, prepared.digest),
    };
  const tests = storedTests(prepared);
  const pks = await ensureTestCases(client, {
    organisationId: input.organisationId,
    repositoryPk: repository.pk,
    ids: tests.ids,
    describe: tests.describe,
    at,
  });
  const testPks = tests.ids.map((id) => pks.get(id)!);
  if (metadata.codeowners !== undefined)
    await updateOwners(
      client,
      testPks.map((pk, i) => ({ pk, codeowners: tests.describe(i).codeowners })),
    );
  const keys = { uploadPk, repositoryPk: repository.pk, at, infra };
  let failures: PendingFailure[];
  let runs: PendingRuns;
  switch (prepared.kind) {
    case 'tests': {
      const rows = prepared.tests.map((test, i) => ({ pk: testPks[i]!, test }));
      await copyResults(client, encodeResults({ ...keys, tests: rows }));
      failures = pendingFailures(rows);
      runs = runsOfTests(rows);
      break;
    }
    case 'rows':
      runs = runsOfRows(prepared.rows, testPks);
      await copyResults(client, fillEncodedRows(prepared.rows, keys, testPks));
      failures = groupFailures(failedAttempts(prepared, testPks));
      break;
  }
  await enqueueFold(client, uploadPk, repository.pk, failures, runs);
  return {
    kind: 'created',
    uploadPk,
    outcome: {
      created: true,
      uploadId: metadata.uploadId,
      files: prepared.files,
      tests: prepared.testCount,
      results: prepared.results,
      failures: prepared.failures,
      skipped: prepared.skipped,
      infra,
      reclassified: 0,
      statusChanges: 0,
    },
  };
}

/** The ids of an upload's tests, and test i as a new row. */
function storedTests(prepared: PreparedUpload): { ids: readonly string[]; describe: (i: number) => NewTest } {
  switch (prepared.kind) {
    case 'tests':
      return { ids: prepared.tests.map((test) => test.id), describe: (i) => prepared.tests[i]! };
    case 'rows':
      return { ids: prepared.ids, describe: (i) => rowsTest(prepared, i) };
  }
}

/** The failed attempts of prepared rows with their tests' pks, in attempt order. */
function* failedAttempts(prepared: PreparedRows, testPks: readonly string[]) {
  const { firstTuple } = prepared.rows;
  let t = 0;
  for (const [attempt, fingerprint, summary, sample] of prepared.failureList) {
    while (firstTuple[t + 1]! <= attempt) t += 1;
    yield [testPks[t]!, fingerprint, summary, sample] as const;
  }
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
