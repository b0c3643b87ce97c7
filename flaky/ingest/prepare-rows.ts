/**
 * prepareRows: an upload whose one file the parser thread already encoded as COPY rows
 * (row-encoder.ts) is prepared without one object per result: the tests' ids are resolved in one
 * pass through the test id cache from the identity strings, and the counts and the content digest
 * are read from the encoded outcomes and failures.
 *
 * Rule: it answers exactly what prepareUpload would (same ids, counts, files and digest; a test pins
 * it), or null when it cannot, and the caller prepares the objects instead: an upload of several
 * files (their tests are joined across files, upload.ts), a file parsed without rows (on the event
 * loop, or one JSON cannot carry), or two tests of the file with one id (joined by prepareUpload).
 */
import { type OwnersResolver } from '../codeowners';
import { type TestIds } from '../test-ids';
import { encodedRowsOf } from './encoded-files';
import { digestOf, fileSummaries, idOrder, ownersOf, type PreparedSummary } from './prepare';
import { type EncodedFailure, type EncodedRows, OUTCOME_CODES, OUTCOMES } from './row-encoder';
import { type UploadInput } from './types';
import { type NewTest } from '../store/ingest-test-cases';

export interface PreparedRows extends PreparedSummary {
  readonly kind: 'rows';
  readonly rows: EncodedRows;
  /** Test i's id. */
  readonly ids: readonly string[];
  /** [file|null, classname, parent, name] of test i at 4i. */
  readonly identities: readonly (string | null)[];
  readonly variant: string;
  readonly failureList: readonly EncodedFailure[];
  readonly owners: OwnersResolver;
}

export function prepareRows(input: UploadInput, ids: TestIds): PreparedRows | null {
  if (input.files.length !== 1) return null;
  const rows = encodedRowsOf(input.files[0]!);
  if (rows === undefined) return null;
  const identities = JSON.parse(rows.identities) as (string | null)[];
  const count = identities.length / 4;
  const idOf = ids.forUpload({
    organisationSlug: input.organisationSlug,
    repository: input.repository,
    variant: input.metadata.variant,
  });
  // One identity object for every lookup: the cache keeps the strings, never the object.
  const scratch: { file?: string | undefined; classname: string; parent: string; name: string } = {
    classname: '',
    parent: '',
    name: '',
  };
  const testIds = new Array<string>(count);
  for (let t = 0; t < count; t += 1) {
    const file = identities[t * 4];
    scratch.file = file === null ? undefined : file;
    scratch.classname = identities[t * 4 + 1]!;
    scratch.parent = identities[t * 4 + 2]!;
    scratch.name = identities[t * 4 + 3]!;
    testIds[t] = idOf(scratch);
  }
  const order = idOrder(testIds);
  for (let i = 1; i < order.length; i += 1) if (testIds[order[i]!] === testIds[order[i - 1]!]) return null;
  const failureList = JSON.parse(rows.failures) as EncodedFailure[];
  const fingerprints = new Map<number, string>();
  for (const failure of failureList) fingerprints.set(failure[0], failure[1]);
  let results = 0;
  let failures = 0;
  const { outcomes, firstTuple } = rows;
  for (let i = 0; i < outcomes.length; i += 1) {
    const code = outcomes[i]!;
    if (code === OUTCOME_CODES.skip) continue;
    results += 1;
    if (code === OUTCOME_CODES.fail) failures += 1;
  }
  return {
    kind: 'rows',
    rows,
    ids: testIds,
    identities,
    variant: input.metadata.variant,
    failureList,
    owners: ownersOf(input),
    files: fileSummaries(input),
    testCount: count,
    results,
    failures,
    skipped: outcomes.length - results,
    digest: digestOf(
      input,
      testIds,
      (t) => {
        let line = '';
        for (let i = firstTuple[t]!; i < firstTuple[t + 1]!; i += 1)
          line += `${i === firstTuple[t] ? '' : ','}${OUTCOMES[outcomes[i]!]!}${fingerprints.get(i) ?? ''}`;
        return line;
      },
      order,
    ),
  };
}

/** Test i of prepared rows as a new test_cases row wants it. */
export function rowsTest(prepared: PreparedRows, t: number): RowsTest {
  const file = prepared.identities[t * 4];
  return {
    id: prepared.ids[t]!,
    ...(file === null || file === undefined ? {} : { file }),
    classname: prepared.identities[t * 4 + 1]!,
    parent: prepared.identities[t * 4 + 2]!,
    name: prepared.identities[t * 4 + 3]!,
    variant: prepared.variant,
    codeowners: prepared.owners(file ?? undefined),
  };
}

/** A test of an encoded upload: what its new test_cases row needs (ingest-test-cases.ts). */
export type RowsTest = NewTest;
