/**
 * prepareUpload: the pure half of ingestion. Parsed files become the rows one upload writes: one
 * entry per test id with its ordered attempts, outcomes, failure fingerprints and code owners,
 * the D4 summary of the whole upload, and a digest of its content.
 *
 * Invariants: test ids are unique in the result (tests that the parser kept apart but that share
 * an id are joined, attempts renumbered in order); the digest depends only on the metadata and the
 * parsed content, not on how the files were sent (multipart or JSON) or chunked.
 */
import { createHash } from 'node:crypto';
import { type Outcome, outcomeOfStatus, summariseUpload } from '../classification';
import { createOwnersResolver, type OwnersResolver } from '../codeowners';
import { type FailureFingerprint, fingerprintFailure } from '../fingerprint';
import { combineUploadFiles, type UploadTestCase } from '../junit';
import { computedTestIds, type TestIds } from '../test-ids';
import { type Mutable } from '../junit/values';
import { type UploadFileSummary, type UploadInput } from './types';

export interface PreparedAttempt {
  readonly index: number;
  readonly outcome: Outcome;
  readonly durationMs?: number;
  readonly failure?: FailureFingerprint;
}

export interface PreparedTest {
  readonly id: string;
  readonly file?: string;
  readonly classname: string;
  readonly parent: string;
  readonly name: string;
  readonly variant: string;
  readonly codeowners: readonly string[];
  readonly attempts: readonly PreparedAttempt[];
  /** Outcome of the last attempt: the test's verdict in this upload. */
  readonly final: Outcome;
}

export interface PreparedUpload {
  readonly tests: readonly PreparedTest[];
  readonly files: readonly UploadFileSummary[];
  readonly results: number;
  readonly failures: number;
  readonly skipped: number;
  readonly digest: string;
}

/** `ids` may remember ids between uploads (test-ids.ts); every id is the same either way. */
export function prepareUpload(input: UploadInput, ids: TestIds = computedTestIds): PreparedUpload {
  const { repository, metadata } = input;
  const owners = ownersOf(input);
  const idOf = ids.forUpload({
    organisationSlug: input.organisationSlug,
    repository,
    variant: metadata.variant,
  });
  const byId = new Map<string, PreparedTest>();
  // One file's tests are already one per identity (the parser joins repeats); only several files
  // need joining across files.
  const parsed = input.files.length === 1 ? input.files[0]!.testCases : combineUploadFiles(input.files);
  for (const test of parsed) {
    const id = idOf(test);
    const own = test.attempts.map(prepareAttempt);
    const seen = byId.get(id);
    // Rare: two tests the parser kept apart share an id; join them, numbering attempts again.
    const attempts =
      seen === undefined ? own : [...seen.attempts, ...own].map((a, index) => ({ ...a, index }));
    const prepared: Mutable<PreparedTest> = {
      id,
      classname: test.classname,
      parent: test.parent,
      name: test.name,
      variant: metadata.variant,
      codeowners: owners(test.file),
      attempts,
      final: attempts[attempts.length - 1]!.outcome,
    };
    if (test.file !== undefined) prepared.file = test.file;
    byId.set(id, prepared);
  }
  const tests = [...byId.values()];
  const outcomes: Outcome[] = [];
  for (const test of tests) for (const attempt of test.attempts) outcomes.push(attempt.outcome);
  const summary = summariseUpload(metadata.uploadId, outcomes);
  return {
    tests,
    files: input.files.map((f) => ({
      name: f.fileName,
      dialect: f.dialect,
      tests: f.summary.tests,
      attempts: f.summary.attempts,
    })),
    results: summary.results,
    failures: summary.failures,
    skipped: outcomes.length - summary.results,
    digest: digestOf(input, tests),
  };
}

const NO_OWNERS: readonly string[] = Object.freeze([]);

function ownersOf(input: UploadInput): OwnersResolver {
  const matched = input.owners;
  if (matched === undefined) return createOwnersResolver(input.metadata.codeowners);
  return (file) => (file === undefined ? NO_OWNERS : (matched.get(file) ?? NO_OWNERS));
}

function prepareAttempt(attempt: UploadTestCase['attempts'][number]): PreparedAttempt {
  const outcome = outcomeOfStatus(attempt.status);
  const prepared: Mutable<PreparedAttempt> = { index: attempt.index, outcome };
  if (attempt.durationMs !== undefined) prepared.durationMs = clampDuration(attempt.durationMs);
  if (outcome === 'fail') {
    const detail = attempt.failure;
    prepared.failure = fingerprintFailure({
      ...(detail?.message === undefined ? {} : { message: detail.message }),
      ...(detail?.type === undefined ? {} : { type: detail.type }),
      ...(detail?.body === undefined ? {} : { body: detail.body.text }),
    });
  }
  return prepared;
}

/** A JUnit `time` can be anything; the column is a 32-bit integer of milliseconds. */
function clampDuration(ms: number): number {
  return Math.min(2_147_483_647, Math.max(0, Math.round(ms)));
}

function digestOf(input: UploadInput, tests: readonly PreparedTest[]): string {
  const { metadata, repository } = input;
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      repository,
      metadata.uploadId,
      metadata.commitSha,
      metadata.branch,
      metadata.prNumber ?? null,
      metadata.jobName ?? null,
      metadata.jobUrl ?? null,
      metadata.attempt,
      metadata.variant,
      metadata.codeowners ?? null,
    ]),
  );
  // One update over the joined lines hashes the same bytes as one update per test, with far fewer
  // calls into the hash.
  const sorted = [...tests].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const lines = new Array<string>(sorted.length);
  for (let i = 0; i < sorted.length; i += 1) {
    const test = sorted[i]!;
    let line = `\n${test.id}:`;
    for (let j = 0; j < test.attempts.length; j += 1) {
      const attempt = test.attempts[j]!;
      line += `${j === 0 ? '' : ','}${attempt.outcome}${attempt.failure?.fingerprint ?? ''}`;
    }
    lines[i] = line;
  }
  hash.update(lines.join(''));
  return hash.digest('hex');
}
