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
import { type Outcome, summariseUpload } from '../classification';
import { createOwnersResolver, type OwnersResolver } from '../codeowners';
import { combineUploadFiles } from '../junit';
import { computedTestIds, type TestIds } from '../test-ids';
import { type Mutable } from '../junit/values';
import { type PreparedAttempt, prepareAttempt } from './attempt';
import { type UploadFileSummary, type UploadInput } from './types';
import { type NewTest } from '../store/ingest-test-cases';

export type { PreparedAttempt } from './attempt';

/** A test of the upload: its test_cases row (ingest-test-cases.ts) and its attempts here. */
export interface PreparedTest extends NewTest {
  readonly attempts: readonly PreparedAttempt[];
  /** Outcome of the last attempt: the test's verdict in this upload. */
  readonly final: Outcome;
}

/** What every prepared upload says of itself (the upload row's columns). */
export interface PreparedSummary {
  readonly files: readonly UploadFileSummary[];
  /** Distinct tests. */
  readonly testCount: number;
  readonly results: number;
  readonly failures: number;
  readonly skipped: number;
  readonly digest: string;
}

/** An upload prepared as one object per test and attempt (any upload; judge.ts needs the objects). */
export interface PreparedTests extends PreparedSummary {
  readonly kind: 'tests';
  readonly tests: readonly PreparedTest[];
}

/** `ids` may remember ids between uploads (test-ids.ts); every id is the same either way. */
export function prepareUpload(input: UploadInput, ids: TestIds = computedTestIds): PreparedTests {
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
    kind: 'tests',
    tests,
    files: fileSummaries(input),
    testCount: tests.length,
    results: summary.results,
    failures: summary.failures,
    skipped: outcomes.length - summary.results,
    digest: digestOf(
      input,
      tests.map((test) => test.id),
      (i) => {
        const attempts = tests[i]!.attempts;
        let line = '';
        for (let j = 0; j < attempts.length; j += 1) {
          const attempt = attempts[j]!;
          line += `${j === 0 ? '' : ','}${attempt.outcome}${attempt.failure?.fingerprint ?? ''}`;
        }
        return line;
      },
    ),
  };
}

export function fileSummaries(input: UploadInput): UploadFileSummary[] {
  return input.files.map((f) => ({
    name: f.fileName,
    dialect: f.dialect,
    tests: f.summary.tests,
    attempts: f.summary.attempts,
  }));
}

const NO_OWNERS: readonly string[] = Object.freeze([]);

export function ownersOf(input: UploadInput): OwnersResolver {
  const matched = input.owners;
  if (matched === undefined) return createOwnersResolver(input.metadata.codeowners);
  return (file) => (file === undefined ? NO_OWNERS : (matched.get(file) ?? NO_OWNERS));
}

/**
 * The upload's content digest: its metadata, then one line per test in id order, `\n<id>:` and the
 * test's attempts (`attemptsLine(test)`: outcome and fingerprint, comma-separated). Both prepared
 * forms hash through here, so the same content has the same digest whichever form it took.
 */
export function digestOf(
  input: UploadInput,
  ids: readonly string[],
  attemptsLine: (test: number) => string,
  order: readonly number[] = idOrder(ids),
): string {
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
  const lines = new Array<string>(order.length);
  for (let i = 0; i < order.length; i += 1) lines[i] = `\n${ids[order[i]!]!}:${attemptsLine(order[i]!)}`;
  hash.update(lines.join(''));
  return hash.digest('hex');
}

/** Indexes of `ids` in id order. */
export function idOrder(ids: readonly string[]): number[] {
  const order = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i += 1) order[i] = i;
  return order.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
}
